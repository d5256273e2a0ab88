/**
 * A conversation cell's figures (`turns`): the steady TTFT per 1,000 added prompt tokens with the conversation's
 * shape, and per steady round each turn's mean TTFT and prompt tokens, so a reader sees whether TTFT grew with the
 * conversation (re-prefilled every turn) or stayed with what a turn added (served from a prefix cache).
 */
import type { RoundResult, TurnFigures } from '../../core/measurements.js'
import type { CellResult } from '../../core/results.js'
import { formatDuration, formatNumber } from '../../core/format.js'

/** `conversations of 4 turns (+128 tokens a turn) · TTFT per 1k added tokens 412 ms`, for a `turns` cell. */
export function conversationLine(c: CellResult): string | undefined {
  const { turns, turnTokens } = c.workload
  if (!turns) return undefined
  const figure = c.metrics?.ttft_per_1k_added
  const reuse = figure === undefined ? '' : ` · TTFT per 1k added tokens ${formatDuration(figure)}`
  return `conversations of ${turns} turns (+${turnTokens ?? 0} tokens a turn)${reuse}`
}

/** `turn 2 TTFT 92 ms · 657 tok (+145)` */
function turnText(t: TurnFigures): string {
  const added = t.added_tokens === undefined ? '' : ` (+${formatNumber(t.added_tokens)})`
  return `turn ${t.turn} TTFT ${formatDuration(t.ttft_ms)} · ${formatNumber(t.prompt_tokens)} tok${added}`
}

/** One line per steady round of a conversation cell: `round 1: turn 1 TTFT 145 ms · 512 tok; turn 2 …`. */
export function turnLines(rounds: readonly RoundResult[]): string | undefined {
  const lines = rounds
    .filter((r) => r.steady && r.turns?.length)
    .map((r) => `- round ${r.index}: ${r.turns!.slice(0, 64).map(turnText).join('; ')}`)
  return lines.length ? lines.join('\n') : undefined
}
