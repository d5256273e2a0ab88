/**
 * Which engine counters changed with a cell, against the baseline cell's rounds, in words
 * (`preemptions 0 → 37 per round`). The rule, per counter over the steady rounds that recorded server counters:
 * its rate per request is compared (so a cell with more requests per round does not move it), and it changed
 * when it went from 0 to above 0 (or back), or when the two means differ by more than twice the larger
 * round-to-round standard deviation of the two. Derived rates (prefix-cache hit rate) follow the same rule on
 * their per-round values. Evidence only: it never changes a verdict.
 */
import type { RoundResult } from '../core/measurements.js'
import { clampShare, formatSeries, isShare, seriesLabel } from '../core/server-counters.js'
import { formatNumber } from '../core/format.js'

/** How many round-to-round standard deviations a change must exceed. */
export const SERVER_CHANGE_SPREADS = 2

interface Series {
  values: number[]
  perRound: number[]
}

function collect(rounds: readonly RoundResult[]): Map<string, Series> {
  const out = new Map<string, Series>()
  const add = (key: string, value: number, perRound: number) => {
    const s = out.get(key) ?? { values: [], perRound: [] }
    s.values.push(value)
    s.perRound.push(perRound)
    out.set(key, s)
  }
  // A stored file may hold what a broken endpoint gave before readings were checked (server-counters.ts): a
  // negative change says nothing, and a share is read clamped to [0, 1].
  const fine = (v: number) => Number.isFinite(v) && v >= 0
  for (const r of rounds) {
    if (!r.steady || !r.server) continue
    const requests = Math.max(1, r.requests)
    for (const [name, delta] of Object.entries(r.server.deltas)) if (fine(delta)) add(name, delta / requests, delta)
    for (const [name, rate] of Object.entries(r.server.rates ?? {}))
      if (fine(rate)) add(name, clampShare(name, rate), clampShare(name, rate))
  }
  return out
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
function sd(xs: readonly number[]): number {
  if (xs.length < 2) return 0
  const m = mean(xs)
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1))
}

function changed(base: readonly number[], current: readonly number[]): boolean {
  const b = mean(base)
  const c = mean(current)
  if ((b === 0) !== (c === 0)) return true
  return Math.abs(c - b) > SERVER_CHANGE_SPREADS * Math.max(sd(base), sd(current))
}

const shown = (name: string, value: number) => formatSeries(name, value, formatNumber)

/** The counters that changed beyond their noise, each as `label base → current[ per round]`; none without both sides. */
export function serverChanges(current: readonly RoundResult[], baseline: readonly RoundResult[]): string[] {
  const now = collect(current)
  const before = collect(baseline)
  const lines: string[] = []
  for (const [name, c] of now) {
    const b = before.get(name)
    if (!b || !changed(b.values, c.values)) continue
    const unit = isShare(name) ? '' : ' per round'
    lines.push(`${seriesLabel(name)} ${shown(name, mean(b.perRound))} → ${shown(name, mean(c.perRound))}${unit}`)
  }
  return lines
}
