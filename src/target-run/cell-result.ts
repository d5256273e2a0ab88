/** Building cell results from a plan cell and what happened to it. */
import type { CellMeasurement } from '../bench/measure.js'
import { skippedVerdict } from '../compare/index.js'
import type { CellHost } from '../core/host.js'
import { isGenerated, type CellPlan, type ScenarioPlan, type TargetSettings } from '../core/plan.js'
import { requestBodyDigest, type CellWorkload } from '../core/workload.js'
import {
  notComparedVerdict,
  type CellResult,
  type PrefixCacheReset,
  type RequestFiles,
  type SpecDecodeStats,
  type TargetInfo,
} from '../core/results.js'
import type { ProbeResult } from '../core/quality.js'

/** The workload a cell records: what its scenario asks for, sent the way its target's settings say. */
export function workloadOf(
  scenario: ScenarioPlan,
  settings: Pick<TargetSettings, 'api' | 'requestBody'>,
): CellWorkload {
  const { inputTokens, outputTokens, concurrency, requests } = scenario
  const requestBody = requestBodyDigest(settings.requestBody)
  return {
    inputTokens,
    outputTokens,
    concurrency,
    requests,
    rate: scenario.rate ?? null,
    api: settings.api,
    ...(requestBody && { requestBody }),
    ...(scenario.prefixTokens && { prefixTokens: scenario.prefixTokens }),
    ...(scenario.slo && { slo: { ...scenario.slo } }),
    ...(isGenerated(scenario.prompts) && { prompts: scenario.prompts }),
    ...(scenario.turns && { turns: scenario.turns, turnTokens: scenario.turnTokens ?? 0 }),
    ...(scenario.thinking !== undefined && { thinking: scenario.thinking }),
  }
}

function skeleton(plan: CellPlan, info: TargetInfo): CellResult {
  const { target, scenario } = plan
  return {
    id: plan.id,
    target: target.id,
    scenario: scenario.id,
    engine: target.engine,
    quant: target.quant ?? null,
    model: target.model ?? null,
    status: 'ok',
    error: null,
    flags: [],
    workload: workloadOf(scenario, target.settings),
    metrics: null,
    rounds: [],
    info,
    // Replaced by the judge when the run compares; `run` mode keeps it.
    verdict: notComparedVerdict(),
  }
}

export interface CellExtras {
  specDecode?: SpecDecodeStats
  /** The target's quality probe, recorded on each of its cells. */
  probe?: { probe: ProbeResult; ms: number }
  /** The target's host record; the measurement adds the rounds it re-measured. */
  host?: CellHost
  /** Seconds the launch the cell was measured on took to come up (`startup_s`); none for a `url:` target. */
  startupS?: number
  /** Seconds the image pull before that launch took (`image_pull_s`); none when no pull happened. */
  imagePullS?: number
  /** What emptying the prefix cache before the measurement's cold round came to (cold-reset.ts). */
  prefixCacheReset?: PrefixCacheReset
  /** The steady rounds' per-request record beside the results (request-files.ts). */
  requestFiles?: RequestFiles
}

export function measuredCell(
  plan: CellPlan,
  m: CellMeasurement,
  info: TargetInfo,
  extras: CellExtras = {},
): CellResult {
  const { specDecode, probe } = extras
  const cell = skeleton(plan, info)
  cell.quality = { ...(probe && { probe: probe.probe, probeMs: Math.round(probe.ms) }), degenerate: m.degenerate }
  cell.metrics = m.metrics
  cell.rounds = m.rounds
  cell.flags = [...m.flags]
  if (!m.metrics) {
    cell.status = 'error'
    const reasons = m.errors.map((e) => `${e.reason} ×${e.count}`).join('; ')
    cell.error = `no request succeeded${reasons ? `: ${reasons}` : ''}`
    cell.verdict = { status: 'error', metrics: {} }
  }
  if (specDecode) cell.specDecode = specDecode
  if (extras.startupS !== undefined) cell.startup_s = extras.startupS
  if (extras.imagePullS !== undefined) cell.image_pull_s = extras.imagePullS
  if (extras.prefixCacheReset) cell.prefixCacheReset = extras.prefixCacheReset
  if (extras.requestFiles) cell.requestFiles = extras.requestFiles
  if (extras.host) cell.host = { ...extras.host, ...(m.remeasured && { remeasured: m.remeasured }) }
  return cell
}

export function errorCell(plan: CellPlan, error: string, info: TargetInfo): CellResult {
  const cell = skeleton(plan, info)
  cell.status = 'error'
  cell.error = error
  cell.verdict = { status: 'error', metrics: {}, note: error }
  return cell
}

/**
 * A cell `select: changed` did not run: nothing measured, its verdict `missing` with `skipped` (see
 * `CellVerdict`); the judge adds the baseline's figures when the run compares.
 */
export function skippedCell(plan: CellPlan): CellResult {
  const cell = skeleton(plan, {})
  cell.verdict = skippedVerdict()
  return cell
}
