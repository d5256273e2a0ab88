/**
 * Reports, pure text from results: the markdown for the PR comment and the job summary (markdown/: one renderer,
 * two size limits, the short notices of runs that measured nothing) and the HTML pages (pages/: the leaderboard,
 * a hardware key's dashboard, the data branch's root page). Posting the comment is run/comment.ts's.
 */
import type { ResultsFile } from '../core/results.js'
import { LINK_ROOM, render, withDashboardLink } from './markdown/render.js'

export { codeBlock, escapeHtml, escapeText, stripControl } from './escape.js'
export { renderBisect, type BisectContext } from './markdown/bisect-report.js'
export { configErrorNotice, couldNotRunNotice, dryRunNotice } from './markdown/notices.js'
export { formatDelta, formatNumber, formatPercent, formatSigned } from '../core/format.js'
export { LINK_ROOM, reportSize, withDashboardLink } from './markdown/render.js'

/** GitHub rejects issue comments longer than this. */
export const COMMENT_LIMIT = 65_536
/** The job summary upload aborts past 1024k per step. */
export const SUMMARY_LIMIT = 1024 * 1024

export interface RenderContext {
  configPath: string
  mode: string
  repoUrl?: string
  runUrl?: string
  sha?: string
  /** Per cell id, its decode tok/s over recent default-branch runs, oldest first: a sparkline next to its Δ. */
  trends?: Record<string, readonly number[]>
  /** The hardware key's dashboard, when the repository serves the data branch with GitHub Pages. */
  dashboardUrl?: string
  /**
   * `comment`: the PR comment's compact form (what needs a look, with why; every cell folded); `full` (the default):
   * the job summary's and `report.md`'s, with the lists and the full table open.
   */
  form?: 'comment' | 'full'
  /** Absolute paths under it are written relative to it (workspace-paths.ts). */
  workspace?: string
}

/**
 * The markdown report; sheds detail in stages to stay under maxChars (counted as UTF-8 bytes) and says what it shed.
 * The full form carries the dashboard link last: the report rendered without it, LINK_ROOM bytes under the limit,
 * then the link's line (withDashboardLink).
 */
export function renderReport(results: ResultsFile, ctx: RenderContext, maxChars: number): string {
  const marker = commentMarker(ctx.configPath)
  if (ctx.form === 'comment' || ctx.dashboardUrl === undefined) return render(results, ctx, marker, maxChars)
  return withDashboardLink(render(results, ctx, marker, maxChars - LINK_ROOM), ctx.dashboardUrl)
}

/** Hidden marker that finds our comment again: one comment per PR and config file. */
export function commentMarker(configPath: string): string {
  return `<!-- llm-bench-gate:${configPath} -->`
}
export { renderLeaderboard, type LeaderboardContext } from './pages/leaderboard.js'
export { renderDashboard, seriesOf, TREND_METRICS, type DashboardInput } from './pages/dashboard.js'
export { renderHardwareIndex, type HardwareSummary } from './pages/dashboard-index.js'
export { sparkline, SPARK_RUNS } from './markdown/sparkline.js'
