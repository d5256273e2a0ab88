/**
 * What the PR comment adds from the history and the data branch: each cell's recent decode series (a
 * sparkline next to its Δ) and a link to the hardware key's dashboard when the repository serves the data
 * branch with GitHub Pages. The Pages lookup never fails a run: no site, a 404, another source branch or
 * any error means no link.
 * https://docs.github.com/en/rest/pages/pages#get-a-apiname-pages-site
 */
import type { GitHubRequest, RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import { HISTORY_SCHEMA, type CellResult, type HistoryEntry, type ResultsFile } from '../core/results.js'
import { errorMessage } from '../core/errors.js'
import { seriesOf, SPARK_RUNS } from '../report/index.js'
import { HISTORY_ENTRIES, historyEntry, mergeHistory } from '../store/index.js'
import { dashboardPage, gatesOf, type RunRules } from './pages.js'

/** Per cell id, decode tok/s over the most recent default-branch runs that measured it, oldest first. */
export function recentTrends(cells: readonly CellResult[], history: readonly HistoryEntry[]): Record<string, number[]> {
  const trends: Record<string, number[]> = {}
  for (const cell of cells) {
    const values = seriesOf(history, cell.id, 'decode').filter((v): v is number => v !== null)
    if (values.length >= 2) trends[cell.id] = values.slice(-SPARK_RUNS)
  }
  return trends
}

/** `<pages site>/<hardware>/index.html` when Pages publishes `branch`; undefined otherwise. */
export async function pagesDashboardUrl(
  github: { request: GitHubRequest; repo: RepoRef },
  branch: string,
  hardware: string,
  log: Logger,
): Promise<string | undefined> {
  try {
    const { data } = await github.request('GET /repos/{owner}/{repo}/pages', { ...github.repo })
    const url = typeof data?.html_url === 'string' ? data.html_url : undefined
    if (!url || data?.source?.branch !== branch) return undefined
    return `${url.replace(/\/+$/, '')}/${encodeURIComponent(hardware)}/index.html`
  } catch (error) {
    log.debug(`no dashboard link: GitHub Pages lookup failed (${errorMessage(error)})`)
    return undefined
  }
}

/**
 * The dashboard a run writes next to its results (`<results-dir>/dashboard/index.html`). A run that writes the
 * baseline (`stored`): its cells as the baseline, over the stored history with this run appended, as the data branch
 * will show it. Any other run (a pull request's, a local compare): the stored history as it is, and this run as a
 * point of its own after it, against the baseline its verdicts compared with.
 */
export function localDashboard(
  results: ResultsFile,
  history: readonly HistoryEntry[],
  rules: RunRules,
  stored = false,
): string | undefined {
  const entry = historyEntry(results, gatesOf(rules))
  if (Object.keys(entry.cells).length === 0) return undefined
  if (!stored) return dashboardPage(results.run.hardware, results, history, rules, { thisRun: results })
  const merged = mergeHistory(
    { schema: HISTORY_SCHEMA, hardware: results.run.hardware, entries: [...history] },
    entry,
    results.run.hardware,
    HISTORY_ENTRIES,
  )
  return dashboardPage(results.run.hardware, results, merged.entries, rules)
}
