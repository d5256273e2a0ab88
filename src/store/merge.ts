/** Pure merges of what is stored with what a run brings: by cell id for baselines, by sha for history. */
import {
  DECODE_FACTORS,
  GATED_METRICS,
  GATE_STATS,
  LAUNCH_METRICS,
  PRIMARY_METRICS,
  isRelative,
  metricInfo,
  metricKey,
  readCellMetric,
  readMetric,
  type GateStat,
  type GatedMetric,
} from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import { workloadDigest } from '../core/workload.js'
import { sweepPoint } from '../core/sweep.js'
import {
  HISTORY_SCHEMA,
  type CellResult,
  type HistoryCulprit,
  type HistoryEntry,
  type HistoryFile,
  type MetricSamples,
  type ResultsFile,
} from '../core/results.js'

const time = (iso: string | undefined): number => {
  const t = Date.parse(iso ?? '')
  return Number.isNaN(t) ? -Infinity : t
}

/** Cells worth storing: measured, healthy, and not placeholders for baseline cells this run skipped. */
export function storableCells(results: ResultsFile): CellResult[] {
  return (
    results.cells
      .filter((c) => c.status === 'ok' && c.metrics !== null && c.verdict?.status !== 'missing')
      // A same-box A/B's base arm measured another commit: the store never keeps it (docs/same-box.md).
      .map(({ ab: _ab, ...cell }) => cell)
  )
}

/**
 * Merges two results files by cell id: the newer run's cells (by `run.startedAt`; `incoming` on a tie)
 * win, cells only in the other file are kept. The run metadata is the newer run's; its `summary` is
 * dropped when the older file contributed cells, since its counts would no longer describe the file.
 */
export function mergeResults(stored: ResultsFile | undefined, incoming: ResultsFile): ResultsFile {
  if (!stored) return incoming
  const incomingNewer = time(incoming.run.startedAt) >= time(stored.run.startedAt)
  const newer = incomingNewer ? incoming : stored
  const older = incomingNewer ? stored : incoming
  const ids = new Set(newer.cells.map((c) => c.id))
  const kept = older.cells.filter((c) => !ids.has(c.id))
  const merged: ResultsFile = { ...newer, cells: [...newer.cells, ...kept] }
  if (kept.length > 0) delete merged.summary
  return merged
}

/**
 * The (metric, stat) pairs history keeps for a gate: every gated metric, plus always the registry's primary metrics'
 * means and the launch figures (one number a cell, which the dashboard draws whatever the gate says). Decode's
 * spec-decode factors go with decode (compare/spec-split.ts judges them with it); a cell that did not draft has none.
 * Energy per token is kept where measured, for the dashboard.
 */
function gatedPairs(gate: GateConfig | undefined): Array<[GatedMetric, GateStat]> {
  // Energy per token too: one number a cell where the GPUs reported power, which the dashboard draws.
  const kept = [...DECODE_FACTORS, 'energy' as const].map((m): [GatedMetric, GateStat] => [m, 'mean'])
  if (!gate)
    return [
      ...GATED_METRICS.flatMap((m) =>
        (metricInfo(m).scalar ? ['mean' as const] : GATE_STATS).map((s): [GatedMetric, GateStat] => [m, s]),
      ),
      ...kept,
    ]
  const pairs = [...PRIMARY_METRICS, ...LAUNCH_METRICS].map((m): [GatedMetric, GateStat] => [m, 'mean'])
  for (const metric of GATED_METRICS) {
    if (!gate[metric]) continue
    pairs.push([metric, isRelative(metric) ? gate[metric]!.stat : 'mean'])
  }
  return [...pairs, ...kept]
}

/** A concurrency sweep's point keeps its output tok/s whatever the gate: the dashboard's serving curve draws it. */
function sweepPairs(cell: CellResult): Array<[GatedMetric, GateStat]> {
  return sweepPoint(cell.scenario) ? [['output-throughput', 'mean']] : []
}

function samplesOf(cell: CellResult, metric: GatedMetric, stat: GateStat): MetricSamples | undefined {
  const steady = readCellMetric(cell, metric, stat)
  if (steady === undefined) return undefined
  const rounds = cell.rounds
    .filter((r) => r.steady && r.metrics)
    .map((r) => readMetric(r.metrics, metric, stat))
    .filter((v) => v !== undefined)
  return { steady, rounds }
}

/**
 * One history entry for a run: per storable cell, the steady value and steady-round samples of each
 * metric key its target's gate uses (`gates` keyed by target id), and a sweep point's output tok/s. Without `gates`,
 * every metric key.
 */
export function historyEntry(results: ResultsFile, gates?: Record<string, GateConfig>): HistoryEntry {
  const cells: HistoryEntry['cells'] = {}
  const workloads: Record<string, string> = {}
  for (const cell of storableCells(results)) {
    workloads[cell.id] = workloadDigest(cell.workload)
    const metrics: Record<string, MetricSamples> = {}
    for (const [metric, stat] of [...gatedPairs(gates ? (gates[cell.target] ?? {}) : undefined), ...sweepPairs(cell)]) {
      const key = metricKey(metric, stat)
      const samples = key in metrics ? undefined : samplesOf(cell, metric, stat)
      if (samples) metrics[key] = samples
    }
    cells[cell.id] = metrics
  }
  const culprits = bisectCulprits(results)
  return {
    sha: results.run.sha,
    date: results.run.startedAt,
    runUrl: results.run.runUrl,
    cells,
    workloads,
    ...(culprits.length && { culprits }),
  }
}

/** The commits a run's bisections named (`bisect: auto`), each with the cells it is named for. */
function bisectCulprits(results: ResultsFile): HistoryCulprit[] {
  return (results.bisect ?? []).flatMap((r) => {
    const named = r.culprit ? [r.culprit] : (r.steps ?? [])
    const pull = r.pull && { number: r.pull.number, url: r.pull.url }
    return named.map((sha) => ({
      sha,
      cells: [...r.cells],
      kind: r.culprit ? ('culprit' as const) : ('step' as const),
      ...(pull && sha === r.culprit && { pull }),
    }))
  })
}

/**
 * Adds a run to the history, newest last, keeping `limit` entries. Idempotent per sha: an entry for
 * the same sha is replaced in place, its cells merged by id (the new run's cells win).
 */
export function mergeHistory(
  stored: HistoryFile | undefined,
  entry: HistoryEntry,
  hardware: string,
  limit: number,
): HistoryFile {
  const entries = [...(stored?.entries ?? [])]
  const same = entries.findIndex((e) => e.sha === entry.sha)
  if (same >= 0) {
    const workloads = { ...entries[same].workloads, ...entry.workloads }
    entries[same] = { ...entry, cells: { ...entries[same].cells, ...entry.cells }, workloads }
  } else {
    // A concurrent writer may have stored a later run already; keep the list in date order.
    let at = entries.length
    while (at > 0 && time(entries[at - 1].date) > time(entry.date)) at--
    entries.splice(at, 0, entry)
  }
  return { schema: HISTORY_SCHEMA, hardware, entries: entries.slice(-Math.max(1, limit)) }
}
