/**
 * Robust spread estimators for the noise model: an odd round or an odd default-branch run (a throttled round, a
 * noisy neighbour) must not pass for the spread of every run, and a level shift must not pass for noise.
 */
import { mean, median, relativeSquares } from '../core/stats.js'

/** Scales a median absolute difference of two normal values to one value's standard deviation: 1 / (0.6745 · √2). */
const MAD_TO_SD = 1 / (0.6745 * Math.SQRT2)

/** Qn's normal-consistency factor, 1 / (√2 · Φ⁻¹(5/8)). */
const QN_SCALE = 2.21914
/** Qn's finite-sample factors for n = 2…12 (as the R package robustbase uses them). */
const QN_SMALL = [0.399356, 0.99365, 0.51321, 0.84401, 0.6122, 0.85877, 0.66993, 0.87344, 0.72014, 0.88906, 0.75743]

/** Runs farther than this many Qn from their segment's median are set aside before the run-to-run variance. */
const SET_ASIDE = 3

/**
 * Qn (Rousseeuw & Croux, "Alternatives to the median absolute deviation", JASA 1993): the k-th smallest pairwise
 * distance, k = C(⌊n/2⌋+1, 2), scaled to a standard deviation for normal samples (finite-sample factors for
 * n ≤ 12, their fitted formula beyond). Nearly half the values may be odd before it moves, and it needs no centre,
 * so two clusters of runs read as the spread within them.
 */
export function qn(values: readonly number[]): number {
  const n = values.length
  if (n < 2) return 0
  const distances = pairDistances(values).sort((a, b) => a - b)
  const h = Math.floor(n / 2) + 1
  const small =
    n <= 12
      ? QN_SMALL[n - 2]
      : 1 / (1 + (n % 2 ? 1.60188 + (-2.1284 - 5.172 / n) / n : 3.67561 + (1.9654 + (6.987 - 77 / n) / n) / n) / n)
  return QN_SCALE * small * distances[(h * (h - 1)) / 2 - 1]
}

/** A variance estimate and its degrees of freedom. */
export interface Spread {
  variance: number
  freedom: number
}

/**
 * Runs whose rounds disagree far more than the others' do: a run's range beyond SET_ASIDE times what the median
 * within-run pairwise difference says (a throttled round). A run of one round is never odd.
 */
export function oddRuns(runs: readonly (readonly number[])[]): boolean[] {
  const usable = (run: readonly number[]) => run.length >= 2 && mean(run) > 0
  const pairs = runs.filter(usable).flatMap((run) => pairDistances(run).map((d) => d / mean(run)))
  const cut = SET_ASIDE * Math.SQRT2 * median(pairs) * MAD_TO_SD
  // With more than half the pairs tied there is no scale to call anything odd by.
  return runs.map((run) => usable(run) && cut > 0 && (Math.max(...run) - Math.min(...run)) / mean(run) > cut)
}

/**
 * Relative round-to-round variance with odd runs set aside, the others' squares about their own means pooled at
 * face value. The median only decides what is odd, so a short, clean history keeps the precision of the plain
 * pooled variance.
 */
export function guardedWithin(runs: readonly (readonly number[])[]): Spread {
  const odd = oddRuns(runs)
  const { squares, freedom } = withinSquares(runs.filter((_, i) => !odd[i]))
  return { variance: freedom ? squares / freedom : 0, freedom }
}

/** Sum of squared relative deviations of each run about its own mean, and the degrees of freedom (face value). */
export function withinSquares(runs: readonly (readonly number[])[]): { squares: number; freedom: number } {
  let squares = 0
  let freedom = 0
  for (const run of runs) {
    if (run.length < 2 || !(mean(run) > 0)) continue
    squares += relativeSquares(run)
    freedom += run.length - 1
  }
  return { squares, freedom }
}

function pairDistances(values: readonly number[]): number[] {
  const distances: number[] = []
  for (let i = 0; i < values.length; i++)
    for (let j = i + 1; j < values.length; j++) distances.push(Math.abs(values[i] - values[j]))
  return distances
}

/**
 * Variance of one run's steady value relative to `reference`, over the segments that start at `breaks`: in each
 * segment the runs farther than SET_ASIDE × Qn from its median are set aside and the sample variance (ddof 1) of
 * the rest is pooled by degrees of freedom. The sample variance keeps the precision a short history needs (Qn
 * alone is about half as efficient at five runs); Qn only decides what is odd. With `keepOdd` no run is set aside:
 * the spread of every launch, odd ones included.
 */
export function runSpread(
  values: readonly number[],
  reference: number,
  breaks: readonly number[] = [],
  keepOdd = false,
): Spread {
  let squares = 0
  let freedom = 0
  const edges = [0, ...breaks, values.length]
  for (let s = 1; s < edges.length; s++) {
    const segment = values.slice(edges[s - 1], edges[s])
    const centre = median(segment)
    const cut = keepOdd ? 0 : SET_ASIDE * qn(segment)
    const kept = cut > 0 ? segment.filter((v) => Math.abs(v - centre) <= cut) : segment
    if (kept.length < 2) continue
    const m = mean(kept)
    for (const v of kept) squares += ((v - m) / reference) ** 2
    freedom += kept.length - 1
  }
  return { variance: freedom ? squares / freedom : 0, freedom }
}
