/**
 * How a PR's matrix file loosens the gate a target is held to, against the same target at the PR's base commit
 * (pure). A PR brings the matrix file it is judged by, so it can raise a limit or drop a metric from the gate and
 * pass a regression that way; the base commit's definition is the one the PR is held to, so the report names
 * every such change. A stricter gate is the PR's to choose and is not listed.
 */
import { formatPercent } from '../core/format.js'
import { GATED_METRICS, METRICS, isCeiling, isDrop } from '../core/metrics.js'
import type { GatedMetric } from '../core/metrics.js'
import type { GateConfig, TargetPlan } from '../core/plan.js'

type AnyGate = { maxRegression?: number; minDelta?: number; max?: number; maxDrop?: number }

const label = (metric: GatedMetric) => METRICS[metric].label

/** One gated metric's loosening, in words; undefined when it is as strict or stricter. */
function metricChange(metric: GatedMetric, base: AnyGate, pr: AnyGate | undefined): string | undefined {
  const name = label(metric)
  if (!pr) return `${name} is no longer gated`
  if (isCeiling(metric))
    return (pr.max ?? 0) > (base.max ?? 0)
      ? `raises ${name}' ceiling ${formatPercent(base.max ?? 0)} → ${formatPercent(pr.max ?? 0)}`
      : undefined
  if (isDrop(metric))
    return (pr.maxDrop ?? 0) > (base.maxDrop ?? 0)
      ? `raises ${name}'s max-drop ${points(base.maxDrop)} → ${points(pr.maxDrop)} points`
      : undefined
  const changes: string[] = []
  if ((pr.maxRegression ?? 0) > (base.maxRegression ?? 0))
    changes.push(
      `raises ${name}'s limit ${formatPercent(base.maxRegression ?? 0)} → ${formatPercent(pr.maxRegression ?? 0)}`,
    )
  if ((pr.minDelta ?? 0) > (base.minDelta ?? 0))
    changes.push(`raises ${name}'s min-delta ${base.minDelta ?? 0} → ${pr.minDelta} ${METRICS[metric].unit}`.trimEnd())
  return changes.length ? changes.join(', ') : undefined
}

const points = (share: number | undefined) => String(Math.round((share ?? 0) * 1000) / 10)

/** Every way the PR's gate for a target is looser than the base's (`raises decode tok/s's limit 5% → 50%`). */
export function loosenedGate(pr: TargetPlan, base: TargetPlan): string[] {
  const changes = GATED_METRICS.flatMap((metric) => {
    const was = (base.gate as Record<string, AnyGate | undefined>)[metric]
    if (!was) return []
    const change = metricChange(metric, was, (pr.gate as Record<string, AnyGate | undefined>)[metric])
    return change ? [change] : []
  })
  const quality = qualityChange(base.gate, pr.gate)
  if (quality) changes.push(quality)
  const [was, now] = [base.settings.noiseFloor, pr.settings.noiseFloor]
  if (now > was) changes.push(`raises noise-floor ${formatPercent(was)} → ${formatPercent(now)}`)
  if (base.settings.ab.mode !== 'off' && pr.settings.ab.mode === 'off') changes.push('turns the same-box A/B off')
  return changes
}

function qualityChange(base: GateConfig, pr: GateConfig): string | undefined {
  if (base.quality && !pr.quality) return 'output quality is no longer gated'
  return undefined
}
