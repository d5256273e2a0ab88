/**
 * The HTML pages of a run: a hardware key's dashboard (report/'s `renderDashboard`) with the level shifts compare/
 * finds under each target's gate and `noise-floor` — the rules its verdicts were judged by — and the data branch's
 * root page. The store writes what `branchPages` builds from each update it merges; the page next to a run's results
 * (dashboard-links.ts) is built by the same `dashboardPage`.
 */
import { historyShifts, type ShiftRules } from '../compare/index.js'
import type { GateConfig } from '../core/plan.js'
import type { HistoryEntry, ResultsFile } from '../core/results.js'
import { renderDashboard, renderHardwareIndex, TREND_METRICS } from '../report/index.js'
import { dashboardPath, ROOT_INDEX_PATH, type PagesOf } from '../store/index.js'

/** Per target id, what its cells are judged by. */
export type RunRules = Readonly<Record<string, ShiftRules>>

/** Per target id, its gate. */
export function gatesOf(rules: RunRules): Record<string, GateConfig> {
  return Object.fromEntries(Object.entries(rules).map(([target, r]) => [target, r.gate]))
}

/**
 * One hardware key's dashboard. `onBranch`: the page sits next to the root index, so it links it. `thisRun`: a run
 * that is not in the history (a pull request's, a local compare run), drawn as such.
 */
export function dashboardPage(
  hardware: string,
  baseline: ResultsFile,
  history: readonly HistoryEntry[],
  rules: RunRules,
  options: { repoUrl?: string; onBranch?: boolean; thisRun?: ResultsFile } = {},
): string {
  return renderDashboard({
    thisRun: options.thisRun,
    hardware,
    baseline,
    history,
    shifts: historyShifts(baseline.cells, history, TREND_METRICS, rules),
    gates: gatesOf(rules),
    repoUrl: options.repoUrl,
    indexLink: options.onBranch,
  })
}

/** The data branch's pages of an update: its key's dashboard and the root page listing every key. */
export function branchPages(rules: RunRules, repoUrl: string | undefined): PagesOf {
  return ({ hardware, baseline, history, keys }) => ({
    [dashboardPath(hardware)]: dashboardPage(hardware, baseline, history, rules, { repoUrl, onBranch: true }),
    [ROOT_INDEX_PATH]: renderHardwareIndex(keys),
  })
}
