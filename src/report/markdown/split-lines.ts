/**
 * Speculative decoding's split of decode tok/s, shown next to the decode figure it explains: acceptance length
 * (tokens a verify step yields) and the verify step's time, decode = acceptance length ÷ step time.
 */
import type { MetricsBlock, RoundResult } from '../../core/measurements.js'
import { METRICS } from '../../core/metrics.js'

/** `accept len 3.40 · step 157 ms`; undefined for a block without the factors (an engine that did not draft). */
export function splitText(m: MetricsBlock | null | undefined): string | undefined {
  if (m?.accept_length === undefined || m.step_ms === undefined) return undefined
  return `${METRICS['accept-length'].short} ${METRICS['accept-length'].format(m.accept_length)} · ${METRICS['step-time'].short} ${METRICS['step-time'].format(m.step_ms)}`
}

/** One line for the steady rounds that drafted (`spec decode: round 1 accept len 3.40 · step 157 ms; round 2 …`). */
export function splitLines(rounds: readonly RoundResult[]): string | undefined {
  const parts = rounds.flatMap((r) => {
    const text = r.steady ? splitText(r.metrics) : undefined
    return text ? [`round ${r.index} ${text}`] : []
  })
  return parts.length ? `- spec decode: ${parts.join('; ')}` : undefined
}
