/**
 * Runs of other tools → cells of a results file. Runs with the same target and scenario are rounds of one cell, in
 * the order the files gave them; the cell's figures are the mean of each round figure over its steady rounds (a figure a
 * round lacks is null in the cell too). One round leaves the noise model no round-to-round spread: the noise floor
 * stands in for it, and the cell says so. The steady rounds' achieved lengths are checked against the requested ones
 * (lengths.ts): a miss flags the cell.
 */
import {
  DISTRIBUTION_METRICS,
  SCALAR_METRICS,
  type MetricsBlock,
  type RoundResult,
  type Stats,
} from '../core/measurements.js'
import { notComparedVerdict, type CellResult } from '../core/results.js'
import { mean } from '../core/stats.js'
import { lengthMisses } from './lengths.js'
import type { Figures, IngestedRun } from './types.js'

const STAT_KEYS: readonly (keyof Stats)[] = ['mean', 'p50', 'p90', 'p99', 'std', 'min', 'max']

/** The engine value of an ingested cell: what measured it is another tool, not one of our engines. */
export const INGESTED_ENGINE = 'external'

export const ONE_ROUND = 'one round: no round-to-round spread, the noise floor stands in for it'

// A figure the tool did not report is written as null: results files read it as not measured.
const NOT_REPORTED = null as unknown as number

/** A full metrics block from the figures a tool gave, null where it gave none. */
export function metricsBlock(figures: Figures): MetricsBlock {
  const block = {} as MetricsBlock
  for (const key of DISTRIBUTION_METRICS) {
    const stats = figures[key] ?? {}
    block[key] = Object.fromEntries(STAT_KEYS.map((s) => [s, finite(stats[s]) ?? NOT_REPORTED])) as unknown as Stats
  }
  for (const key of SCALAR_METRICS) block[key] = finite(figures[key]) ?? NOT_REPORTED
  return block
}

const finite = (value: number | undefined | null): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

/**
 * What of our figures a run lacks, in our names (`ttft_ms: no p90, min, max`, `prefill_tps: not reported`), after
 * the tool's own reasons (`failed_share: SGLang counts no failed requests`), which name a figure first.
 */
export function unmappedOf(run: IngestedRun): string[] {
  const named = new Set(run.unmapped.flatMap((note) => note.split(':')[0].split(', ')))
  const missing: string[] = []
  for (const key of [...DISTRIBUTION_METRICS, ...SCALAR_METRICS]) {
    if (named.has(key)) continue
    const value = run.figures[key]
    if (value === undefined || typeof value === 'number') {
      if (finite(value) === undefined) missing.push(`${key}: not reported`)
      continue
    }
    const absent = STAT_KEYS.filter((s) => finite(value[s]) === undefined)
    if (absent.length === STAT_KEYS.length) missing.push(`${key}: not reported`)
    else if (absent.length) missing.push(`${key}: no ${absent.join(', ')}`)
  }
  return [...run.unmapped, ...missing]
}

function round(run: IngestedRun, index: number, discard: number): RoundResult {
  return {
    index,
    steady: index >= discard,
    requests: run.requests,
    errors: run.errors ?? 0,
    errorReasons: [],
    durationMs: run.durationMs,
    metrics: metricsBlock(run.figures),
    achieved: run.achieved,
  }
}

/** Mean over the rounds of each figure; null when any round lacks it. */
function steady(rounds: readonly RoundResult[]): MetricsBlock {
  const pick = (values: readonly unknown[]) =>
    values.every((v) => finite(v as number) !== undefined) ? mean(values as number[]) : NOT_REPORTED
  const block = {} as MetricsBlock
  for (const key of DISTRIBUTION_METRICS) {
    block[key] = Object.fromEntries(
      STAT_KEYS.map((s) => [s, pick(rounds.map((r) => r.metrics[key][s]))]),
    ) as unknown as Stats
  }
  for (const key of SCALAR_METRICS) block[key] = pick(rounds.map((r) => r.metrics[key]))
  return block
}

function cell(tool: string, runs: readonly IngestedRun[], discard: number): CellResult {
  const [first] = runs
  const rounds = runs.map((run, i) => round(run, i, discard))
  const kept = rounds.filter((r) => r.steady)
  const unmapped = [...new Set(runs.flatMap(unmappedOf))]
  if (kept.length === 1) unmapped.push(ONE_ROUND)
  const version = first.version
  return {
    id: `${first.target}/${first.scenario}`,
    target: first.target,
    scenario: first.scenario,
    engine: INGESTED_ENGINE,
    quant: null,
    model: first.model,
    status: 'ok',
    error: null,
    flags: lengthMisses(
      first.check,
      kept.map((r) => r.achieved),
    ),
    workload: first.workload,
    metrics: kept.length ? steady(kept) : null,
    rounds,
    info: version ? { version } : {},
    ingested: { tool, files: [...new Set(runs.map((r) => r.file))], unmapped },
    verdict: notComparedVerdict(),
  }
}

/** Cells in the order their first run came; each cell's first `discard` rounds are warm-up, outside its figures. */
export function ingestedCells(tool: string, runs: readonly IngestedRun[], discard = 0): CellResult[] {
  const groups = new Map<string, IngestedRun[]>()
  for (const run of runs) {
    const id = `${run.target}/${run.scenario}`
    const group = groups.get(id)
    if (group) group.push(run)
    else groups.set(id, [run])
  }
  return [...groups.values()].map((group) => cell(tool, group, discard))
}
