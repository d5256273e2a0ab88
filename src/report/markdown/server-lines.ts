/** The server-counter line of each steady round: counters that moved, derived rates, gauge peaks. */
import type { RoundResult } from '../../core/measurements.js'
import { formatSeries, seriesLabel, type RoundServer } from '../../core/server-counters.js'
import { formatNumber } from '../../core/format.js'
import { escapeText } from '../escape.js'

const value = (name: string, v: number) => formatSeries(name, v, formatNumber)
/** Only what moved is shown; a negative or non-finite figure (a stored file from a broken endpoint) never is. */
const moved = ([, v]: [string, number]) => Number.isFinite(v) && v > 0

/** `preemptions +37 · prefix-cache hit rate 92 % · waiting max 5`: what did not move is left out. */
function serverText(s: RoundServer): string {
  const parts = [
    ...Object.entries(s.deltas)
      .filter(moved)
      .map(([name, d]) => `${seriesLabel(name)} +${value(name, d)}`),
    // A rate of 0 (no prompt shared a cached prefix) says nothing a reader needs each round; a change is named in
    // the verdict's line (compare/server-changes.ts).
    ...Object.entries(s.rates ?? {})
      .filter(moved)
      .map(([name, r]) => `${seriesLabel(name)} ${value(name, r)}`),
    ...Object.entries(s.peaks)
      .filter(moved)
      .map(([name, p]) => `${seriesLabel(name)} max ${value(name, p)}`),
  ]
  return parts.length ? escapeText(parts.join(' · ')) : 'no counter moved'
}

/**
 * One line per steady round with server counters (`round 2: server preemptions +37 · …`); `no server counters`
 * when steady rounds ran and none recorded any (an engine without a metrics endpoint, or one that did not answer).
 */
export function serverLines(rounds: readonly RoundResult[]): string | undefined {
  const steady = rounds.filter((r) => r.steady)
  if (!steady.length) return undefined
  if (!steady.some((r) => r.server)) return '- no server counters'
  return steady.flatMap((r) => (r.server ? [`- round ${r.index}: server ${serverText(r.server)}`] : [])).join('\n')
}
