/**
 * The dashboard of one hardware key (`<hardware>/index.html` on the data branch): the leaderboard of the
 * current baseline, then per cell trend charts of decode tok/s, TTFT and startup over the history with detected
 * level shifts marked, and filters by engine, quant and scenario. One self-contained page: inline style,
 * script and SVG, no external request, so it reads the same from `file://` and from GitHub Pages.
 * Everything from engines and configs is escaped; the hover data is a JSON block read as text.
 */
import { REFERENCE_RUNS } from '../../compare/index.js'
import { formatNumber, plural } from '../../core/format.js'
import { PRIMARY_METRICS, metricInfo, metricKey, type GatedMetric } from '../../core/metrics.js'
import type { GateConfig } from '../../core/plan.js'
import type { HistoryEntry, ResultsFile } from '../../core/results.js'
import { engineLabel, runtimeLabel } from '../../core/runtime.js'
import { chartUnit, trendBand } from './dashboard-band.js'
import { trendChart, trendDefs, trendReference, type TrendCulprit } from './dashboard-chart.js'
import { DATA_ID, FILTERS, TIP_ID, dashboardScript } from './dashboard-script.js'
import { DASHBOARD_CSS } from './dashboard-style.js'
import { escapeHtml, safeUrl } from '../escape.js'
import {
  TABLE_ID,
  baselineColumns,
  formatDate,
  measuredCells,
  leaderboardTable,
  modelName,
  pageColumns,
  runCurves,
  sortScript,
  type Measured,
} from './leaderboard.js'
import { pageHead } from './leaderboard-style.js'
import { CURVE_CSS, curvesSection, previousRuns, sweepCurves } from '../sweep-curves.js'
import { marksLegend } from './dashboard-marks.js'
import {
  referenceTitle,
  runLabel,
  runMetaParts,
  runPoint,
  storedRegressions,
  verdictReference,
} from './dashboard-run.js'

/**
 * The charted metrics, each as its mean; `startup` is the cell's target's launch (none for a `url:` target), `energy`
 * the GPU energy per output token (only where the GPUs reported power), `goodput` the share of requests that met the
 * scenario's `slo` (only for a scenario with one), in percent.
 */
export const TREND_METRICS: readonly GatedMetric[] = ['decode', 'ttft', 'startup', 'energy', 'goodput']

export interface DashboardInput {
  hardware: string
  baseline: ResultsFile
  /** Oldest first. */
  history: readonly HistoryEntry[]
  /** Per cell id and metric, the history indexes where a detected level shift starts. */
  shifts?: Record<string, Partial<Record<GatedMetric, readonly number[]>>>
  /**
   * Per target name, its gate (the configuration's), whose limit each chart shades around the reference. A target
   * without one, or a metric its gate does not name, gets the default band (dashboard-band.ts).
   */
  gates?: Record<string, GateConfig>
  /** `https://github.com/o/r`, to link commits. */
  repoUrl?: string
  /** Link the root page listing every hardware key (on the data branch, not next to a run's results). */
  indexLink?: boolean
  /**
   * A run that is not a default-branch run (a pull request's, a local compare run): the table shows its cells with
   * their verdict and Δ, each chart its figure as a point of its own after the history (never one of the history's),
   * against the level its verdict compared with, and the page names that baseline (`summary.baseline`).
   */
  thisRun?: ResultsFile
}

type FilterKey = (typeof FILTERS)[number]
const facet: Record<FilterKey, (cell: Measured) => string> = {
  engine: (c) => engineLabel(c),
  quant: (c) => c.quant ?? '',
  scenario: (c) => c.scenario,
}
const facetAttrs = (cell: Measured): string => FILTERS.map((k) => ` data-${k}="${escapeHtml(facet[k](cell))}"`).join('')

/** The page for one hardware key. */
export function renderDashboard(input: DashboardInput): string {
  const { thisRun } = input
  const cells = measuredCells((thisRun ?? input.baseline).cells)
  const title = escapeHtml(`LLM serving dashboard · ${input.hardware}`)
  const run = thisRun && { label: runLabel(thisRun.run), sha: thisRun.run.sha, date: thisRun.run.startedAt }
  const data = {
    commits: [
      ...input.history.map((e) => [e.sha.slice(0, 7), formatDate(e.date)]),
      ...(run ? [[`${run.sha.slice(0, 7)} ${run.label}`, formatDate(run.date)]] : []),
    ],
    units: TREND_METRICS.map((m) => chartUnit(m).unit),
    // A series no run recorded has no chart to hover, so it carries nothing.
    series: cells.map((c) =>
      TREND_METRICS.map((m) => {
        const values = [...chartSeries(input.history, c.id, m), ...(run ? [runPoint(c, m, run.label).value] : [])]
        return values.every((v) => v === null) ? [] : values.map((v) => (v === null ? null : formatNumber(v)))
      }),
    ),
  }
  const last = input.history.at(-1)
  const curves = thisRun ? runCurves(thisRun, cells) : dashboardCurves(input, cells)
  const columns = thisRun ? pageColumns(cells) : baselineColumns(cells)
  return `${pageHead(title, DASHBOARD_CSS + (curves ? CURVE_CSS : ''))}
<header>
<h1>${title}</h1>
<p class="meta">${thisRun ? runMetaLine(input, thisRun) : metaLine(input, last)}${input.indexLink ? ' · <a href="../index.html">all hardware</a>' : ''}</p>
</header>
<main>
${filters(cells)}
${cells.length ? leaderboardTable(cells, columns, facetAttrs) : `<p>No cell in ${thisRun ? 'this run' : 'the baseline'}.</p>`}
${curves}<h2>Trends over ${plural(input.history.length, 'default-branch run')}${run ? ` and ${escapeHtml(run.label)}` : ''}</h2>
<p class="dim">${trendsNote(run?.label)}</p>
${marksLegend(run?.label)}
${trendDefs()}
<div class="cards">
${cells.map((c, i) => card(input, c, i)).join('\n')}
</div>
</main>
<div id="${TIP_ID}" role="tooltip" hidden></div>
<script type="application/json" id="${DATA_ID}">${jsonForScript(data)}</script>
<script>
${sortScript(TABLE_ID)}
${dashboardScript()}
</script>
</body>
</html>
`
}

/**
 * The serving curves of the baseline's sweeps: solid, the latest stored run of each point (the table's figures);
 * dashed, the run before it in the history, so the chart shows what the latest change to the default branch did.
 */
function dashboardCurves(input: DashboardInput, cells: readonly Measured[]): string {
  const previous = previousRuns(input.history, cells)
  const curves = sweepCurves(cells, (c) => previous.get(c.id)?.output)
  const shas = [...new Set([...previous.values()].map((p) => p.sha.slice(0, 7)))]
  return curvesSection(curves, {
    current: 'latest run',
    baseline: shas.length === 1 ? `previous run ${shas[0]}` : 'previous run of each point',
    note:
      'Per concurrency sweep, output tok/s against per-user tok/s at each concurrency, one colour per target: solid the ' +
      "latest stored run (the table's figures), dashed the default branch's run before it (its output tok/s; per-user " +
      'tok/s is that divided by the concurrency). Both axes start at 0.',
  })
}

export function seriesOf(history: readonly HistoryEntry[], id: string, metric: GatedMetric): (number | null)[] {
  const key = metricKey(metric, 'mean')
  return history.map((e) => {
    const v = e.cells[id]?.[key]?.steady
    return typeof v === 'number' && Number.isFinite(v) ? v : null
  })
}

/** A metric's series as its chart draws it: a share in percent (chartUnit), every other figure as recorded. */
function chartSeries(history: readonly HistoryEntry[], id: string, metric: GatedMetric): (number | null)[] {
  const { scale } = chartUnit(metric)
  return seriesOf(history, id, metric).map((v) => (v === null ? null : v * scale))
}

/**
 * A metric's chart parts: the history's values and, on a page about this run, its point and the level its verdict
 * compared with (the baseline's figure); on the stored page, the median the next verdict compares with
 * (trendReference) and the newest run's regressions.
 */
function chartParts(input: DashboardInput, cell: Measured, metric: GatedMetric) {
  const values = chartSeries(input.history, cell.id, metric)
  const shifts = input.shifts?.[cell.id]?.[metric] ?? []
  const { thisRun } = input
  if (!thisRun) {
    const regressed = storedRegressions(input.baseline, input.history, cell, metric)
    return { values, shifts, reference: trendReference(values, shifts), regressed }
  }
  const run = runPoint(cell, metric, runLabel(thisRun.run))
  const reference = verdictReference(cell, metric)
  const line =
    reference === undefined ? undefined : { value: reference, title: referenceTitle(thisRun, metric, reference) }
  return { values, shifts, reference, run, line }
}

function card(input: DashboardInput, cell: Measured, index: number): string {
  const charts = TREND_METRICS.map((metric, m) => {
    const { label } = metricInfo(metric)
    const { unit, bounds } = chartUnit(metric)
    const { values, shifts, reference, regressed, run, line } = chartParts(input, cell, metric)
    // A figure no run recorded (startup of a `url:` target, energy without power readings, or either before it was
    // kept) gets no chart; the primary figures always have one.
    if (!PRIMARY_METRICS.includes(metric) && [...values, run?.value ?? null].every((v) => v === null)) return ''
    const band = reference === undefined ? undefined : trendBand(metric, reference, input.gates?.[cell.target])
    const culprits = trendCulprits(input, cell.id)
    const chart = trendChart(
      { values, shifts, label, unit, band, bounds, culprits, regressed, run, reference: line },
      ` data-cell="${index}" data-metric="${m}"`,
    )
    const latest = run?.value ?? values.filter((v) => v !== null).at(-1)
    const now = latest === undefined ? '' : ` <span class="dim">${formatNumber(latest)} ${escapeHtml(unit)}</span>`
    const note = band ? `<span class="band-note">${escapeHtml(band.note)}</span>` : ''
    return `<figure><figcaption>${escapeHtml(label)}${now}${note}</figcaption>${chart}</figure>`
  })
  const heading = `${escapeHtml(modelName(cell))} <span class="dim">${escapeHtml(runtimeLabel(cell))} · ${escapeHtml(cell.scenario)}</span>`
  return `<section class="cell"${facetAttrs(cell)} data-id="${escapeHtml(cell.id)}"><h3>${heading}</h3>${charts.join('')}</section>`
}

/**
 * The commits bisections named for a cell (`HistoryEntry.culprits`), each at the run of that commit where main
 * measured it, else at the run whose bisection named it; linked to its pull request, else to the commit.
 */
function trendCulprits(input: DashboardInput, id: string): TrendCulprit[] {
  const { history, repoUrl } = input
  return history.flatMap((entry, at) =>
    (entry.culprits ?? [])
      .filter((c) => c.cells.includes(id) && /^[0-9a-f]{40,64}$/.test(c.sha))
      .map((c) => {
        const own = history.findIndex((e) => e.sha === c.sha)
        const pull = c.pull && safeUrl(c.pull.url)
        const href = pull ?? (repoUrl && safeUrl(repoUrl) ? `${safeUrl(repoUrl)}/commit/${c.sha}` : undefined)
        const pr = c.pull ? ` (#${c.pull.number})` : ''
        return { index: own >= 0 ? own : at, title: `${c.kind} ${c.sha.slice(0, 7)}${pr}`, ...(href && { href }) }
      }),
  )
}

function filters(cells: readonly Measured[]): string {
  const selects = FILTERS.map((key) => {
    const values = [...new Set(cells.map(facet[key]))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    const options = values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v || '—')}</option>`).join('')
    return `<label>${key} <select id="filter-${key}"><option value="">all</option>${options}</select></label>`
  })
  return `<form class="filters" onsubmit="return false">${selects.join(' ')}</form>`
}

/** What the trends show, and what their band is around. */
function trendsNote(runLabel: string | undefined): string {
  const common =
    'Steady-state mean per run, oldest left, a point per run that measured the cell; a dashed line marks a detected level shift. '
  const band = runLabel
    ? `The diamond after the history is ${runLabel}, judged against the baseline its verdict compared with (the level line); the shaded band is the gate's limit around that level. A red ring or a red diamond is a regression. `
    : `The shaded band is the gate's limit around the reference, the median of the newest ${REFERENCE_RUNS} runs since the last level shift: a run inside it is a change the gate would not flag; a red ring marks the newest run where its verdict was a regression. `
  return escapeHtml(
    common +
      band +
      "The y axis always holds the whole band and starts no lower than 0, so a small change stays small. Hover a chart for the run's commit, date and value.",
  )
}

/** The meta line of a page about this run: what it is, the baseline it was compared with, when, which tool. */
function runMetaLine(input: DashboardInput, thisRun: ResultsFile): string {
  const run = thisRun.run
  const url = safeUrl(run.runUrl)
  return [
    ...runMetaParts(thisRun, input.repoUrl),
    formatDate(run.finishedAt ?? run.startedAt),
    `${escapeHtml(run.tool.name)} ${escapeHtml(run.tool.version)}`,
    url ? `<a href="${escapeHtml(url)}">workflow run</a>` : '',
  ]
    .filter(Boolean)
    .join(' · ')
}

function metaLine(input: DashboardInput, last: HistoryEntry | undefined): string {
  const run = input.baseline.run
  const url = safeUrl(run.runUrl)
  const repo = safeUrl(input.repoUrl)
  const sha = run.sha ? `<code title="${escapeHtml(run.sha)}">${escapeHtml(run.sha.slice(0, 12))}</code>` : 'unknown'
  return [
    `baseline ${repo && run.sha ? `<a href="${escapeHtml(`${repo}/commit/${run.sha}`)}">${sha}</a>` : sha}`,
    `updated ${formatDate(last?.date ?? run.finishedAt ?? run.startedAt)}`,
    `${escapeHtml(run.tool.name)} ${escapeHtml(run.tool.version)}`,
    url ? `<a href="${escapeHtml(url)}">workflow run</a>` : '',
  ]
    .filter(Boolean)
    .join(' · ')
}

/** JSON inside a script element: nothing in it may end the element or read as markup. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}
