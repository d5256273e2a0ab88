/**
 * One GitHub issue per regression episode on the default branch. An episode is one hardware key and a set of cells;
 * its issue carries a hidden marker (an HTML comment at the top of the body holding the episode's identity and the
 * level of each gated metric before the episode), is found again among the open issues labelled
 * `llm-bench-regression`, updated in place only when its title or body changed, and closed, with one comment naming
 * the run, by the first default-branch run that measures every cell of it back within the limit of that level.
 *
 * GitHub REST API (https://docs.github.com/en/rest/issues/issues): "List repository issues" pages with the `Link`
 * header and lists pull requests too, each with a `pull_request` key; "Create an issue" takes `labels`; "Update an
 * issue" takes `state: closed` with `state_reason: completed`. Comments: "Create an issue comment"
 * (https://docs.github.com/en/rest/issues/comments#create-an-issue-comment). Errors keep their HTTP status.
 */
import { formatDelta, formatNumber, formatPercent } from '../core/format.js'
import { isBotUser, listAllPages, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import { escapeText, stripControl } from '../report/index.js'

/** The label every episode issue carries: public interface, workflows and people filter on it. */
export const REGRESSION_LABEL = 'llm-bench-regression'

/** The level before an episode of one gated metric of one cell: the figure, which way is better, the limit (a fraction, 0.05 = 5 %). */
export interface LevelBefore {
  value: number
  higher: boolean
  limit: number
}

export interface Episode {
  /** The baseline key (hardware), e.g. `nvidia-gb10`. */
  hardware: string
  /** Cell ids (`target/scenario`) the episode is about; the episode's identity is hardware + these ids sorted. */
  cells: string[]
  title: string
  /** Markdown body written by the caller (untrusted text already escaped by the caller); the marker is added here. */
  body: string
  /** Per cell id, per gated metric key (`decode`, `ttft`, …), the level before the episode. */
  before: Record<string, Record<string, LevelBefore>>
}

export type EpisodeWrite = { action: 'created' | 'updated' | 'unchanged'; number: number; url: string }

/** A default-branch run's steady figures: per cell id, per metric key. */
export interface RunLevels {
  sha: string
  runUrl: string
  cells: Record<string, Record<string, number>>
}

export interface CulpritPull {
  number: number
  url: string
  title: string
}

type Levels = Record<string, Record<string, LevelBefore>>
interface Marker {
  hardware: string
  cells: string[]
  before: Levels
}
interface OpenEpisode {
  number: number
  url: string
  title: string
  body: string
  marker: Marker
}

const MARKER_OPEN = `<!-- ${REGRESSION_LABEL} `
const MARKER_CLOSE = '-->'
/** The most of an issue body read as the marker: bodies are untrusted, and anyone with write access may edit them. */
const MARKER_MAX = 16 * 1024
const ID_MAX = 200
const CELLS_MAX = 200
const METRICS_MAX = 32
const PER_PAGE = 100
/** 10 pages of 100 open episode issues: a repository with more is not worth more requests. */
const MAX_PAGES = 10
const TITLE_MAX = 200
const OPEN_EPISODES = { state: 'open', labels: REGRESSION_LABEL }
const CLOSED = { state: 'closed', state_reason: 'completed' }
/** A link target we may print: http(s), no spaces, quotes, angle brackets or parentheses. */
const SAFE_URL = /^https?:\/\/[^\s()<>"'`]+$/

type Json = Record<string, unknown>
const isRecord = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x)
const isId = (x: unknown): x is string => typeof x === 'string' && x.length > 0 && x.length <= ID_MAX
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined
const sortedIds = (ids: readonly string[]): string[] => [...new Set(ids)].sort()
const identity = (hardware: string, cells: readonly string[]): string => JSON.stringify([hardware, cells])

function readLevel(x: unknown): LevelBefore | undefined {
  if (!isRecord(x)) return undefined
  const { value, higher, limit } = x
  if (typeof value !== 'number' || !Number.isFinite(value) || typeof higher !== 'boolean') return undefined
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0 || limit > 10) return undefined
  return { value, higher, limit }
}

function readLevels(x: unknown): Record<string, LevelBefore> | undefined {
  if (!isRecord(x)) return undefined
  const entries = Object.entries(x).map(([key, level]) => [key, readLevel(level)] as const)
  if (entries.length === 0 || entries.length > METRICS_MAX) return undefined
  const valid = entries.every(([key, level]) => isId(key) && level)
  return valid ? (Object.fromEntries(entries) as Record<string, LevelBefore>) : undefined
}

/** The marker's document, every field checked; undefined for anything else (never throws). */
function readDoc(doc: unknown): Marker | undefined {
  if (!isRecord(doc) || !isId(doc.hardware) || !Array.isArray(doc.cells) || !isRecord(doc.before)) return undefined
  const { cells, before } = doc
  if (cells.length === 0 || cells.length > CELLS_MAX || !cells.every(isId)) return undefined
  const sorted = sortedIds(cells)
  // Every cell has its levels and nothing else does: an episode can only close on cells it can judge.
  if (sorted.length !== cells.length || Object.keys(before).length !== sorted.length) return undefined
  const levels = sorted.map((cell) => [cell, readLevels(own(before, cell))] as const)
  if (!levels.every(([, l]) => l)) return undefined
  return { hardware: doc.hardware, cells: sorted, before: Object.fromEntries(levels) as Levels }
}

/** The marker at the top of an issue body, read from at most MARKER_MAX characters. */
function readMarker(body: unknown): Marker | undefined {
  if (typeof body !== 'string') return undefined
  const head = body.trimStart().slice(0, MARKER_OPEN.length + MARKER_MAX)
  if (!head.startsWith(MARKER_OPEN)) return undefined
  const end = head.indexOf(MARKER_CLOSE, MARKER_OPEN.length)
  if (end < 0) return undefined
  try {
    return readDoc(JSON.parse(head.slice(MARKER_OPEN.length, end)))
  } catch {
    return undefined
  }
}

/**
 * The marker as written. An HTML comment ends at the first `-->` or `--!>`
 * (https://html.spec.whatwg.org/multipage/syntax.html#comments), so `<`, `>` and `&` go into the JSON as `\u003c`,
 * `\u003e`, `\u0026`, escapes JSON.parse reads back (RFC 8259 §7). Throws when the marker would not read back (an id
 * too long, a limit out of (0, 10], a cell without levels, too large): written anyway, it would open a new issue
 * on every run.
 */
function renderMarker(marker: Marker): string {
  const json = JSON.stringify(marker).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  const text = `${MARKER_OPEN}${json} ${MARKER_CLOSE}`
  if (!readMarker(text)) throw new Error(`regression issue for ${marker.hardware}: its marker would not read back`)
  return text
}

function episodeOf(item: unknown): OpenEpisode[] {
  // The issues list holds pull requests too; only the bot's own issues count.
  if (!isRecord(item) || 'pull_request' in item || !isBotUser(item.user)) return []
  if (typeof item.number !== 'number' || typeof item.html_url !== 'string') return []
  const marker = readMarker(item.body)
  const title = typeof item.title === 'string' ? item.title : ''
  return marker ? [{ number: item.number, url: item.html_url, title, body: String(item.body), marker }] : []
}

/** Every open episode issue, oldest first, following pagination until there is no next page. */
async function openEpisodes(request: GitHubRequest, repo: RepoRef): Promise<OpenEpisode[]> {
  // Only issues opened through the API by the workflow's token: a person quoting the marker must not capture one.
  const items = await listAllPages(
    request,
    'GET /repos/{owner}/{repo}/issues',
    { ...repo, ...OPEN_EPISODES },
    MAX_PAGES,
  )
  return items.flatMap(episodeOf).sort((a, b) => a.number - b.number)
}

/**
 * The episode's marker; levels already written are kept (a later bisection does not move the level before), new
 * cells and metrics added. Keys sorted and fields in one order, so an unchanged episode renders the same text.
 */
function markerOf(episode: Episode, cells: string[], kept: Marker | undefined): Marker {
  const levels = (cell: string) => {
    const merged: Record<string, LevelBefore> = { ...own(episode.before, cell), ...(kept && own(kept.before, cell)) }
    const metrics = Object.keys(merged).sort()
    return Object.fromEntries(
      metrics.map((m) => [m, { value: merged[m].value, higher: merged[m].higher, limit: merged[m].limit }]),
    )
  }
  return { hardware: episode.hardware, cells, before: Object.fromEntries(cells.map((c) => [c, levels(c)])) }
}

/** Creates the episode's issue, or updates the open one with its identity when its title or body differ. */
export async function upsertEpisodeIssue(
  request: GitHubRequest,
  repo: RepoRef,
  episode: Episode,
): Promise<EpisodeWrite> {
  const cells = sortedIds(episode.cells)
  const key = identity(episode.hardware, cells)
  // The oldest wins should two runs ever have raced to open the same episode.
  const open = (await openEpisodes(request, repo)).find((e) => identity(e.marker.hardware, e.marker.cells) === key)
  const { title } = episode
  const body = `${renderMarker(markerOf(episode, cells, open?.marker))}\n${episode.body}`
  if (open) {
    if (open.title === title && open.body === body) return { action: 'unchanged', number: open.number, url: open.url }
    const patch = { ...repo, issue_number: open.number, title, body }
    const res = await request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', patch)
    return { action: 'updated', number: open.number, url: String(res.data?.html_url ?? open.url) }
  }
  const res = await request('POST /repos/{owner}/{repo}/issues', { ...repo, title, body, labels: [REGRESSION_LABEL] })
  return { action: 'created', number: Number(res.data.number), url: String(res.data.html_url) }
}

const figure = (run: RunLevels, cell: string, metric: string): number | undefined => {
  const levels = own(run.cells, cell)
  const value = levels && own(levels, metric)
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** Higher-is-better: at least before·(1−limit); lower-is-better: at most before·(1+limit). */
const withinLimit = (now: number, level: LevelBefore): boolean =>
  level.higher ? now >= level.value * (1 - level.limit) : now <= level.value * (1 + level.limit)

/** Strict: every cell of the episode measured in this run, every gated metric back within its limit. */
function recovered(marker: Marker, run: RunLevels): boolean {
  return marker.cells.every((cell) =>
    Object.entries(marker.before[cell]).every(([metric, level]) => {
      const now = figure(run, cell, metric)
      return now !== undefined && withinLimit(now, level)
    }),
  )
}

function closingComment(marker: Marker, run: RunLevels): string {
  const sha = /^[0-9a-f]{7,64}$/i.test(run.sha) ? `\`${run.sha.slice(0, 7)}\`` : escapeText(run.sha.slice(0, 64))
  const url = SAFE_URL.test(run.runUrl) ? run.runUrl : undefined
  const rows = marker.cells.flatMap((cell) =>
    Object.entries(marker.before[cell]).map(([metric, level]) => {
      const now = figure(run, cell, metric)!
      const change = level.value === 0 ? '' : ` (${formatDelta(now / level.value - 1)})`
      const cells = [escapeText(cell), escapeText(metric), formatNumber(level.value), formatNumber(now) + change]
      return `| ${cells.join(' | ')} | ${formatPercent(level.limit)} |`
    }),
  )
  return [
    `Recovered on the default branch at ${sha}${url ? ` in [this run](${url})` : ''}: every cell of this ` +
      'regression is back within the limit of its level before the regression. Closing.',
    '',
    '| Cell | Metric | Before | Now | Limit |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows,
  ].join('\n')
}

/** Closes, each with one comment naming the run, the open episodes of `hardware` this run measures as recovered. */
export async function closeRecoveredEpisodes(
  request: GitHubRequest,
  repo: RepoRef,
  hardware: string,
  run: RunLevels,
): Promise<{ closed: number[] }> {
  const closed: number[] = []
  for (const episode of await openEpisodes(request, repo)) {
    if (episode.marker.hardware !== hardware || !recovered(episode.marker, run)) continue
    const issue = { ...repo, issue_number: episode.number }
    const comment = closingComment(episode.marker, run)
    await request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...issue, body: comment })
    await request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { ...issue, ...CLOSED })
    closed.push(episode.number)
  }
  return { closed }
}

function pullOf(item: unknown): (CulpritPull & { merged: boolean; mergeSha: unknown }) | undefined {
  if (!isRecord(item) || typeof item.number !== 'number' || !Number.isSafeInteger(item.number)) return undefined
  if (typeof item.html_url !== 'string' || !SAFE_URL.test(item.html_url)) return undefined
  const text = stripControl(typeof item.title === 'string' ? item.title : '').replace(/\s+/g, ' ')
  const title = text.length > TITLE_MAX ? `${text.slice(0, TITLE_MAX - 1)}…` : text
  const merged = typeof item.merged_at === 'string' && item.merged_at !== ''
  return { number: item.number, url: item.html_url, title, merged, mergeSha: item.merge_commit_sha }
}

/**
 * The pull request that brought a commit (GitHub "List pull requests associated with a commit",
 * https://docs.github.com/en/rest/commits/commits#list-pull-requests-associated-with-a-commit); undefined when none.
 * Prefers a merged PR whose merge_commit_sha is the commit, else the first. The title is untrusted: control
 * characters dropped, at most 200 characters; escaping it is the caller's.
 */
export async function pullOfCommit(
  request: GitHubRequest,
  repo: RepoRef,
  sha: string,
): Promise<CulpritPull | undefined> {
  const query = { ...repo, commit_sha: sha, per_page: PER_PAGE }
  const res = await request('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', query)
  const pulls = (Array.isArray(res.data) ? (res.data as unknown[]) : []).flatMap((item) => pullOf(item) ?? [])
  const chosen = pulls.find((p) => p.merged && p.mergeSha === sha) ?? pulls[0]
  return chosen && { number: chosen.number, url: chosen.url, title: chosen.title }
}
