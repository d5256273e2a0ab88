/**
 * The pages of the data branch, built from what an update stores: `<hardware>/index.html` (the dashboard
 * of the merged baseline and history, with the level shifts the verdicts would see) and the root
 * `index.html` listing every hardware key that has a baseline with its latest update.
 */
import { NOISE_FLOOR, levelShifts } from '../compare/index.js'
import { isRelative, metricKey, type GatedMetric } from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import type { HistoryEntry, ResultsFile } from '../core/results.js'
import { renderDashboard, renderHardwareIndex, seriesOf, TREND_METRICS, type HardwareSummary } from '../report/index.js'
import type { Snapshot } from './commit-files.js'

const BASELINE = /^([^/]+)\/baseline\.json$/

/** Per cell and charted metric, the history indexes where a level shift starts. */
export function historyShifts(
  baseline: ResultsFile,
  history: readonly HistoryEntry[],
  gates: Record<string, GateConfig>,
): Record<string, Partial<Record<GatedMetric, number[]>>> {
  const shifts: Record<string, Partial<Record<GatedMetric, number[]>>> = {}
  for (const cell of baseline.cells) {
    for (const metric of TREND_METRICS) {
      const values = seriesOf(history, cell.id, metric)
      const at = values.flatMap((v, i) => (v === null ? [] : [i]))
      const key = metricKey(metric, 'mean')
      const rounds = at.map((i) => history[i].cells[cell.id]?.[key]?.rounds ?? [])
      const config = isRelative(metric) ? gates[cell.target]?.[metric] : undefined
      const starts = levelShifts(
        at.map((i) => values[i]!),
        rounds,
        { config, noiseFloor: NOISE_FLOOR },
      )
      if (starts.length) (shifts[cell.id] ??= {})[metric] = starts.map((s) => at[s])
    }
  }
  return shifts
}

/** `onBranch`: the page sits next to the root index, so it links it. */
export function dashboardPage(
  hardware: string,
  baseline: ResultsFile,
  history: readonly HistoryEntry[],
  gates: Record<string, GateConfig>,
  options: { repoUrl?: string; onBranch?: boolean } = {},
): string {
  return renderDashboard({
    hardware,
    baseline,
    history,
    shifts: historyShifts(baseline, history, gates),
    gates,
    repoUrl: options.repoUrl,
    indexLink: options.onBranch,
  })
}

/** The root page: this update's key from what it writes, every other key from its stored baseline. */
export async function rootIndex(snapshot: Snapshot, current: HardwareSummary): Promise<string> {
  const keys = new Map<string, HardwareSummary>([[current.hardware, current]])
  for (const path of await snapshot.paths()) {
    const hardware = BASELINE.exec(path)?.[1]
    if (!hardware || keys.has(hardware)) continue
    keys.set(hardware, summaryOf(hardware, await snapshot.read(path)))
  }
  return renderHardwareIndex([...keys.values()])
}

/**
 * Another key's baseline, as the root page lists it. The data branch is untrusted: what another writer left
 * unreadable or of the wrong shape still gets its row, with what can be read of it, and never stops this
 * key's update.
 */
function summaryOf(hardware: string, text: string | undefined): HardwareSummary {
  let file: unknown
  try {
    file = JSON.parse(text ?? '')
  } catch {
    return { hardware }
  }
  const record = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {}
  const string = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const run = record(record(file).run)
  const cells = record(file).cells
  return {
    hardware,
    updated: string(run.finishedAt) ?? string(run.startedAt),
    sha: string(run.sha),
    cells: Array.isArray(cells) ? cells.length : undefined,
  }
}
