/** The plan as `llm-bench-gate validate` prints it: what would run, with every value resolved. */
import { GATED_METRICS, METRICS, isDrop, isRelative, metricInfo } from '../core/metrics.js'
import { isGenerated } from '../core/plan.js'
import type { GateConfig, Plan, QualityProbeSettings, ScenarioPlan, TargetPlan, TargetSettings } from '../core/plan.js'
import type { QualityGate } from '../core/quality.js'
import { formatBytes, formatDuration, formatPercent, formatPoints } from '../core/format.js'
import { engineByName } from '../engines/registry.js'
import { formatSlo } from '../core/workload.js'

export function formatPlan(plan: Plan): string {
  const head = [
    `Plan for ${plan.configPath}${plan.configPath === plan.resolvedPath ? '' : ` (${plan.resolvedPath})`}`,
    `${count(plan.targets.length, 'target')}, ${count(plan.cells.length, 'cell')}${plan.hardware ? `; hardware ${plan.hardware}` : ''}`,
  ]
  return [...head, ...formatSweeps(plan), ...plan.targets.flatMap((t) => ['', ...formatTarget(t)])].join('\n') + '\n'
}

/** Each concurrency sweep and the cells it became: `chat-1k: concurrency sweep 1, 2, 4, 8 → cells chat-1k@c1 … @c8`. */
function formatSweeps(plan: Plan): string[] {
  const sweeps = new Map<string, ScenarioPlan[]>()
  for (const s of plan.targets.flatMap((t) => t.scenarios)) {
    if (s.sweep === undefined) continue
    const points = sweeps.get(s.sweep) ?? []
    if (!points.some((p) => p.id === s.id)) points.push(s)
    sweeps.set(s.sweep, points)
  }
  return [...sweeps].map(([name, points]) => {
    const sorted = [...points].sort((a, b) => a.concurrency - b.concurrency)
    const ids = sorted.map((s) => s.id)
    const cells = ids.length > 2 ? `${ids[0]} … ${ids.at(-1)!.slice(name.length)}` : ids.join(', ')
    return `${name}: concurrency sweep ${sorted.map((s) => s.concurrency).join(', ')} → ${ids.length === 1 ? 'cell' : 'cells'} ${cells}`
  })
}

function formatTarget(t: TargetPlan): string[] {
  const matrix = Object.entries(t.matrix).map(([k, v]) => `${k}=${v}`)
  const source =
    t.sourceKey !== t.id || matrix.length
      ? ` (from ${t.sourceKey}${matrix.length ? `, ${matrix.join(', ')}` : ''})`
      : ''
  const facts = [t.engine, t.quant && `quant ${t.quant}`, t.model && `model ${t.model}`].filter(Boolean).join(', ')
  const lines = [`${t.id}${source}`, row('engine', facts)]
  if (t.launch !== undefined) lines.push(row('launch', t.launch))
  if (t.container)
    lines.push(row('image', `${t.container.image}${t.container.runtime ? ` (${t.container.runtime})` : ''}`))
  if (t.stop !== undefined) lines.push(row('stop', t.stop))
  lines.push(row('url', t.external ? `${t.url} (already running: nothing is launched or stopped)` : t.url))
  if (t.port !== undefined) lines.push(row('port', String(t.port)))
  const env = Object.entries(t.env).map(([k, v]) => `${k}=${v}`)
  if (env.length) lines.push(row('env', env.join(' ')))
  const options = Object.entries(t.engineOptions).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  )
  if (options.length) lines.push(row('options', options.join(' ')))
  lines.push(
    row('runs', formatSettings(t.settings)),
    row(
      'probe',
      engineByName(t.engine).measuresItself
        ? 'none: another tool measures this target, nothing is probed'
        : formatProbe(t.settings.quality),
    ),
    row(
      'gate',
      formatGate(
        t.gate,
        t.scenarios.some((s) => s.slo),
        t.scenarios.some((s) => s.turns),
      ),
    ),
    row('cells', ''),
  )
  const width = Math.max(...t.scenarios.map((s) => `${t.id}/${s.id}`.length))
  for (const s of t.scenarios) lines.push(`    ${`${t.id}/${s.id}`.padEnd(width)}  ${formatWorkload(s)}`)
  return lines
}

function row(label: string, value: string): string {
  return `  ${label.padEnd(8)}${value}`.trimEnd()
}

function formatSettings(s: TargetSettings): string {
  const floor =
    s.memoryFloor.kind === 'bytes'
      ? formatBytes(s.memoryFloor.value)
      : `${formatPercent(s.memoryFloor.value)} of memory`
  return [
    `${count(s.rounds, 'round')} (${s.discard} discarded)${s.maxRounds > s.rounds ? `, up to ${s.maxRounds} when noisy` : ''}`,
    `confirm ${s.confirm}${s.confirmFresh ? ' (fresh launch)' : ''}`,
    `noise-floor ${formatPercent(s.noiseFloor)}`,
    `api ${s.api}`,
    `ready-timeout ${formatDuration(s.readyTimeoutMs)}`,
    `request-timeout ${formatDuration(s.requestTimeoutMs)}`,
    `memory-floor ${floor}`,
    `max-error-share ${formatPercent(s.maxErrorShare)}`,
    ...(s.dropCaches ? ['drop-caches'] : []),
    ...(s.allowGpuProcesses.length ? [`allow-gpu-processes ${s.allowGpuProcesses.join(' ')}`] : []),
    ...(Object.keys(s.requestBody).length ? [`request-body ${JSON.stringify(s.requestBody)}`] : []),
  ].join(', ')
}

/** The output quality probe as the file sets it: `40 questions (32 tokens each) + 12 greedy prompts, 64 in flight`. */
function formatProbe(probe: QualityProbeSettings | false): string {
  if (probe === false) return 'off (quality: false)'
  const api = probe.api ? `, api ${probe.api}` : ''
  return `${count(probe.questions, 'question')} (${probe.maxTokens} tokens each) + ${count(probe.prompts, 'greedy prompt')}, ${probe.concurrency} in flight${api}`
}

/** The quality gate: `quality accuracy drop > 5 points, agreement < 0.8, degenerate fail`. */
function formatQualityGate(q: QualityGate): string {
  return `quality accuracy drop > ${formatPoints(q.maxAccuracyDrop)} points, agreement < ${q.minAgreement}, degenerate ${q.degenerate}`
}

/**
 * The target's limits; goodput's only where one of its scenarios has an `slo`, TTFT per 1k added tokens only where
 * one has `turns` (no other cell measures them).
 */
export function formatGate(gate: GateConfig, slo = false, turns = false): string {
  const parts = GATED_METRICS.flatMap((metric) => {
    if (metricInfo(metric).onlyWith === 'turns' && !turns) return []
    if (isDrop(metric)) {
      const g = gate[metric]
      return g && slo ? [`${metric} down by > ${formatPoints(g.maxDrop)} points (cells with an slo)`] : []
    }
    if (!isRelative(metric)) {
      const g = gate[metric]
      return g ? [`${metric} above ${formatPercent(g.max)}`] : []
    }
    const g = gate[metric]
    if (!g) return []
    const info = METRICS[metric]
    // Limits are printed as the file writes them: a duration for ms, a plain number of tok/s.
    const delta =
      g.minDelta === undefined
        ? ''
        : ` and ${info.unit === 'ms' ? formatDuration(g.minDelta) : info.unit === 's' ? formatDuration(g.minDelta * 1000) : `${g.minDelta} ${info.unit}`}`
    return [`${metric}${info.scalar ? '' : ` ${g.stat}`} worse by > ${formatPercent(g.maxRegression)}${delta}`]
  })
  if (gate.quality) parts.push(formatQualityGate(gate.quality))
  return parts.length ? parts.join('; ') : 'none (nothing can regress)'
}

export function formatWorkload(s: ScenarioPlan): string {
  const load = s.rate !== undefined ? `${s.rate} req/s (Poisson)` : `concurrency ${s.concurrency}`
  const prefix = s.prefixTokens
    ? `, the first ${s.prefixTokens} shared by every request of a round (a prefix cache serves them once warm)`
    : ''
  // What a good request is: the SLO's effect.
  const slo = s.slo ? `; goodput: requests that succeed with ${formatSlo(s.slo)}` : ''
  const prompts = isGenerated(s.prompts)
    ? `, ${s.prompts} prompts (an instruction and a passage of generated ${PASSAGES[s.prompts]} each)`
    : ''
  return `${s.inputTokens} in${prefix} → ${s.outputTokens} out, ${load}, ${count(s.requests, s.turns ? 'conversation' : 'request')}/round${prompts}${conversationWords(s)}${slo}`
}

/** `, 4 turns each (+256 tokens a turn), thinking off`: a conversation's shape and the template's thinking switch. */
function conversationWords(s: ScenarioPlan): string {
  const turns = s.turns ? `, ${s.turns} turns each (the answer and +${s.turnTokens ?? 0} tokens a turn)` : ''
  return s.thinking === undefined ? turns : `${turns}, thinking ${s.thinking ? 'on' : 'off'}`
}

/** What a generated kind's passages are, for the plan's words. */
const PASSAGES = { text: 'prose', code: 'Python', math: 'worked arithmetic' } as const

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
