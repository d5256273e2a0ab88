/**
 * A conversation round's figures per turn (`rounds[].turns`) and its prefix-reuse figure, TTFT per 1,000 added
 * prompt tokens (`ttft_per_1k_added`): over the successful requests of turns ≥ 2 whose previous turn the server
 * counted too, Σ TTFT ÷ Σ prompt tokens the turn added since that previous turn, × 1,000. A ratio of sums, so a
 * turn that added many tokens weighs as much as its cost. A prefix cache that serves the conversation so far
 * leaves the prefill of the added tokens alone (the previous answer and the new message); an engine that prefills
 * the whole conversation again shows a figure that grows with every turn.
 */
import { mean } from '../../core/stats.js'
import type { RequestRecord, RoundResult, TurnFigures } from '../../core/measurements.js'

export function turnFigures(records: readonly RequestRecord[]): TurnFigures[] {
  const byTurn = new Map<number, RequestRecord[]>()
  for (const r of records) {
    if (!r.ok || r.turn === undefined) continue
    byTurn.set(r.turn, [...(byTurn.get(r.turn) ?? []), r])
  }
  return [...byTurn.keys()]
    .sort((a, b) => a - b)
    .map((turn) => {
      const ok = byTurn.get(turn)!
      const added = ok.flatMap((r) => (r.addedTokens === undefined ? [] : [r.addedTokens]))
      return {
        turn,
        ok: ok.length,
        ttft_ms: mean(ok.map((r) => r.ttftMs)),
        prompt_tokens: mean(ok.map((r) => r.promptTokens)),
        ...(added.length && { added_tokens: mean(added) }),
      }
    })
}

/** TTFT per 1,000 added prompt tokens over the round's later turns; undefined where none added a counted token. */
export function ttftPer1kAdded(records: readonly RequestRecord[]): number | undefined {
  let ttft = 0
  let added = 0
  for (const r of records) {
    if (!r.ok || r.addedTokens === undefined || !(r.addedTokens > 0)) continue
    ttft += r.ttftMs
    added += r.addedTokens
  }
  return added > 0 ? (1000 * ttft) / added : undefined
}

/** Adds the per-turn figures and TTFT per 1k added tokens to a conversation round. */
export function withTurns(result: RoundResult, records: readonly RequestRecord[]): void {
  result.turns = turnFigures(records)
  const figure = ttftPer1kAdded(records)
  if (figure !== undefined) result.metrics.ttft_per_1k_added = figure
}
