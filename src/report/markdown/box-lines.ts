/**
 * The box around a cell's rounds in the report: next to its status (`✅ pass · ⚠️ box disturbed`), in its verdict
 * line (what disturbed it, `verdict.disturbed`), under the headline (the cells whose verdict was reached on a
 * disturbed box), and one line per steady round in the Rounds section (`rounds[].host`). A pass under a disturbed box
 * never reads as a clean one. Process names come from the processes themselves: escaped, clipped.
 */
import type { RoundResult } from '../../core/measurements.js'
import type { RoundHost } from '../../core/round-host.js'
import type { CellResult, ResultsFile } from '../../core/results.js'
import { formatBytes, formatDuration, formatPercent, plural } from '../../core/format.js'
import { clip, code, escapeText } from '../escape.js'

export const DISTURBED_MARK = '⚠️'

/** The status text with `· ⚠️ box disturbed` when the verdict was reached on a disturbed box. */
export function withDisturbedMark(text: string, cell: CellResult): string {
  return cell.verdict.disturbed?.length ? `${text} · ${DISTURBED_MARK} box disturbed` : text
}

/** `⚠️ box disturbed, not a clean pass: round 2: stress (pid 123) used 98 % of a core during the round`. */
export function disturbedText(cell: CellResult): string | undefined {
  const found = cell.verdict.disturbed
  if (!found?.length) return undefined
  const clean = cell.verdict.status === 'pass' ? ', not a clean pass' : ''
  return `${DISTURBED_MARK} box disturbed${clean}: ${escapeText(clip(found.join('; '), 1000))}`
}

/** Under the headline: the cells whose verdict was reached while the box was disturbed, passes first said so. */
export function disturbedNote(results: ResultsFile): string | undefined {
  const cells = results.cells.filter((c) => c.verdict.disturbed?.length)
  if (!cells.length) return undefined
  const passed = cells.filter((c) => c.verdict.status === 'pass').length
  const lines = cells
    .slice(0, 10)
    .map((c) => `> - ${code(clip(c.id, 120))} (${c.verdict.status}): ${escapeText(clip(c.verdict.disturbed![0], 300))}`)
  const more = cells.length > 10 ? [`> - … and ${plural(cells.length - 10, 'more cell')}`] : []
  const clean = passed
    ? ` ${plural(passed, 'pass', 'passes')} among them ${passed === 1 ? 'is' : 'are'} not clean.`
    : ''
  return [
    `> [!WARNING]\n> The box was disturbed during the rounds of ${plural(cells.length, 'cell')}: their verdicts stand, measured beside other load.${clean}`,
    ...lines,
    ...more,
  ].join('\n')
}

/** A duration of a minute or more to the second; a shorter one as it is. */
const wholeSeconds = (ms: number) => (ms >= 60_000 ? Math.round(ms / 1000) * 1000 : ms)

/** One line per steady round with a host record: `round 2: up 3.2d · engine launched 4m before · …`. */
export function boxLines(rounds: readonly RoundResult[]): string | undefined {
  const lines = rounds.flatMap((r) => (r.steady && r.host ? [`- round ${r.index}: box ${boxText(r.host)}`] : []))
  return lines.length ? lines.join('\n') : undefined
}

function boxText(h: RoundHost): string {
  const parts = [
    // Whole seconds past a minute: `13h40m50s`, not the hundredths /proc/uptime gives.
    h.uptimeS === undefined ? undefined : `up ${formatDuration(wholeSeconds(h.uptimeS * 1000))}`,
    h.attached
      ? 'engine not launched by this run'
      : h.launchAgeMs === undefined
        ? undefined
        : `engine launched ${formatDuration(wholeSeconds(h.launchAgeMs))} before`,
    h.memory &&
      `available ${formatBytes(h.memory.beforeBytes)} → ${formatBytes(h.memory.afterBytes)} (min ${formatBytes(h.memory.minBytes)})`,
    h.swap && `swap ${formatBytes(h.swap.usedBytes)}, ${h.swap.inPages} in/${h.swap.outPages} out pages`,
    h.cpu && `${formatPercent(h.cpu.busy)} of ${plural(h.cpu.cores, 'CPU')} busy`,
    h.cpu?.top.length
      ? `others: ${h.cpu.top.map((p) => `${escapeText(clip(p.comm, 40))} (pid ${p.pid}) ${formatPercent(p.cores)} of a core`).join(', ')}`
      : undefined,
    h.gpuProcesses?.length
      ? `new GPU processes: ${h.gpuProcesses.map((p) => `${escapeText(clip(p.name, 80))} (pid ${p.pid})`).join(', ')}`
      : undefined,
    h.disturbed?.length ? `${DISTURBED_MARK} ${escapeText(clip(h.disturbed.join('; '), 400))}` : undefined,
  ]
  return parts.filter(Boolean).join(' · ')
}
