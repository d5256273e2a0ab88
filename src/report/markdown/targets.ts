/** Per-target detail: engine versions, startup, launch commands, server facts, spec decoding, and why targets failed. */
import type { CellResult } from '../../core/results.js'
import { clip, codeBlock, details, escapeText, tail } from '../escape.js'
import { formatDelta, formatDuration, formatNumber, plural } from '../../core/format.js'
import { metricInfo, readCellMetric } from '../../core/metrics.js'
import { acceptance } from './details.js'

/** Log tails and server facts are clipped so one chatty engine cannot crowd out the rest of the report. */
export const LOG_TAIL_CHARS = 6000
const SERVER_CHARS = 2000

function byTarget(cells: readonly CellResult[]): Map<string, CellResult[]> {
  const groups = new Map<string, CellResult[]>()
  for (const cell of cells) groups.set(cell.target, [...(groups.get(cell.target) ?? []), cell])
  return groups
}

export function enginesSection(cells: readonly CellResult[]): string | undefined {
  const blocks: string[] = []
  for (const [target, group] of byTarget(cells.filter((c) => c.verdict.status !== 'missing'))) {
    const first = group[0]
    const info = first.info ?? {}
    const facts = [
      `engine ${escapeText(first.engine)}`,
      info.version ? `version ${escapeText(clip(info.version, 200))}` : 'version unknown',
      first.quant ? `quant ${escapeText(first.quant)}` : undefined,
      first.model ? `model ${escapeText(clip(first.model, 200))}` : undefined,
      startupFact(first),
    ].filter(Boolean)
    const lines = [`#### ${escapeText(target)}`, '', facts.join(' · ')]
    for (const cell of group) {
      const spec = acceptance(cell)
      if (spec)
        lines.push(
          '',
          `- ${escapeText(cell.scenario)}: decode ${formatNumber(cell.metrics?.decode_tps?.mean)} tok/s, ${spec}`,
        )
    }
    if (info.launch) lines.push('', codeBlock(info.launch, 'sh'))
    if (info.server && Object.keys(info.server).length)
      lines.push('', codeBlock(clip(JSON.stringify(info.server, null, 2), SERVER_CHARS), 'json'))
    blocks.push(lines.join('\n'))
  }
  return blocks.length
    ? details(`Engines and launch commands (${plural(blocks.length, 'target')})`, blocks.join('\n\n'))
    : undefined
}

/**
 * `startup 41.2s (baseline 38s, +8.4%; image pull 3m10s apart)`: the launch's figure, with the baseline's when the
 * gate compared it, and the image pull before the launch when there was one (never part of startup).
 */
function startupFact(cell: CellResult): string | undefined {
  const info = metricInfo('startup')
  const value = readCellMetric(cell, 'startup', 'mean')
  if (value === undefined) return undefined
  const judged = cell.verdict.metrics.startup
  const notes = [
    judged ? `baseline ${info.format(judged.baseline)}, ${formatDelta(judged.delta)}` : undefined,
    cell.image_pull_s !== undefined ? `image pull ${formatDuration(cell.image_pull_s * 1000)} apart` : undefined,
  ].filter(Boolean)
  return `${info.label} ${info.format(value)}${notes.length ? ` (${notes.join('; ')})` : ''}`
}

/** Each failed target once: its cells' errors and, unless shed, the engine's last log lines. */
export function failuresSection(cells: readonly CellResult[], withLogs: boolean): string | undefined {
  const blocks: string[] = []
  for (const [target, group] of byTarget(cells.filter((c) => c.status === 'error'))) {
    const errors = [...new Set(group.map((c) => `${c.scenario}: ${c.error ?? 'error'}`))]
    const lines = [`#### ${escapeText(target)}`, '', codeBlock(errors.join('\n'))]
    const logTail = group.find((c) => c.info?.logTail)?.info.logTail
    if (withLogs && logTail) lines.push('', 'Last log lines:', '', codeBlock(tail(logTail, LOG_TAIL_CHARS)))
    blocks.push(lines.join('\n'))
  }
  return blocks.length ? details(`Failed targets (${plural(blocks.length, 'target')})`, blocks.join('\n\n')) : undefined
}
