/**
 * The output quality probe of one target, run once after readiness and before measuring: the
 * seeded probe questions and the first `prompts` greedy prompts, each one untimed greedy request
 * (temperature 0, end-of-sequence honoured) through the target's bench client, `concurrency` at
 * a time, then the benchmark-shaped greedy requests one at a time (quality/greedy.ts). Questions are
 * scored by exact match; the greedy outputs are kept, clipped, so that a baseline made from this run
 * holds them. Failed requests are retried once and tolerated up to `max-error-share` (see runJobs).
 */
import { setMaxListeners } from 'node:events'
import type { BenchClient } from '../bench/measure.js'
import { formatDuration, formatPercent } from '../core/format.js'
import type { Api, QualityProbeSettings } from '../core/plan.js'
import type { GreedyOutput, ProbeResult } from '../core/quality.js'
import {
  BENCHMARK_SHAPED_MAX_INPUT,
  BENCHMARK_SHAPED_REQUESTS,
  CUT_HINT,
  GREEDY_MAX_TOKENS,
  GREEDY_PROMPTS,
  PROBE_DEFAULT_SEED,
  benchmarkShapedKey,
  keepGreedy,
  probeQuestions,
  scoreProbe,
} from '../quality/index.js'

export interface ProbeRun {
  probe: ProbeResult
  /** Wall time of the whole probe. */
  ms: number
  /** `quality probe 40 questions + 12 prompts in 1.2 s: accuracy 100%` */
  summary: string
}

interface Job {
  prompt: string
  maxTokens: number
}

interface JobsResult {
  /** Each job's reply; undefined for a job whose request failed twice. */
  texts: (string | undefined)[]
  cut: boolean[]
  /** Jobs whose request failed twice, and the last failure. */
  failed: number
  lastFailure?: string
}

/**
 * Runs the jobs `concurrency` at a time, in order of the list. A request that fails is sent once more; one that
 * fails again leaves its job unanswered. Past `maxFailed` unanswered jobs no more are handed out and the probe
 * fails. The requests share one signal of their own, linked to the run's, that may hold a listener per request
 * in flight.
 */
async function runJobs(
  client: BenchClient,
  jobs: readonly Job[],
  o: { concurrency: number; api: Api; signal: AbortSignal; maxFailed: number },
): Promise<JobsResult> {
  const local = new AbortController()
  setMaxListeners(2 * o.concurrency + 1, local.signal)
  const cancel = () => local.abort(o.signal.reason)
  o.signal.addEventListener('abort', cancel, { once: true })
  if (o.signal.aborted) cancel()
  const result: JobsResult = {
    texts: new Array(jobs.length),
    cut: new Array<boolean>(jobs.length).fill(false),
    failed: 0,
  }
  const ask = (job: Job) => client.complete(job.prompt, job.maxTokens, { api: o.api, signal: local.signal })
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !local.signal.aborted && result.failed <= o.maxFailed) {
      const i = next++
      let reply = await ask(jobs[i])
      if (reply.error && !local.signal.aborted) reply = await ask(jobs[i])
      if (reply.error) {
        result.failed++
        result.lastFailure = reply.error.message
        continue
      }
      result.texts[i] = reply.text
      result.cut[i] = reply.outputTokens !== undefined && reply.outputTokens >= jobs[i].maxTokens
    }
  }
  await Promise.all(Array.from({ length: Math.min(o.concurrency, jobs.length) }, worker)).finally(() =>
    o.signal.removeEventListener('abort', cancel),
  )
  if (local.signal.aborted) throw new Error('quality probe: cancelled')
  if (result.failed > o.maxFailed) {
    throw new Error(
      `quality probe failed: ${result.failed} request${result.failed === 1 ? '' : 's'} failed twice, more than max-error-share allows of ${jobs.length} (last: ${result.lastFailure})`,
    )
  }
  return result
}

/**
 * Probes a ready target. A question whose request failed twice counts as answered wrong and a greedy prompt's
 * output is left out of agreement, while such requests stay within `maxErrorShare` of the probe's; past it the
 * probe throws, naming the last failure.
 */
export async function runProbe(
  client: BenchClient,
  settings: QualityProbeSettings,
  api: Api,
  signal: AbortSignal,
  maxErrorShare = 0,
  /** The prompt length of the benchmark-shaped greedy requests (the target's first scenario's); none without. */
  benchmarkInput?: number,
): Promise<ProbeRun> {
  const started = performance.now()
  const questions = probeQuestions(PROBE_DEFAULT_SEED, settings.questions)
  const prompts = GREEDY_PROMPTS.slice(0, settings.prompts)
  const jobs: Job[] = [
    ...questions.map((q) => ({ prompt: q.text, maxTokens: settings.maxTokens })),
    ...prompts.map((prompt) => ({ prompt, maxTokens: GREEDY_MAX_TOKENS })),
  ]
  const { texts, cut, failed } = await runJobs(client, jobs, {
    concurrency: settings.concurrency,
    api: settings.api ?? api,
    signal,
    maxFailed: Math.floor(maxErrorShare * jobs.length),
  })
  const shaped =
    benchmarkInput !== undefined && prompts.length > 0
      ? await benchmarkShaped(client, Math.min(benchmarkInput, BENCHMARK_SHAPED_MAX_INPUT), signal)
      : { outputs: [], failed: 0 }
  const score = scoreProbe(questions, texts.slice(0, questions.length))
  const cutQuestions = cut.slice(0, questions.length).filter(Boolean).length
  const greedy = keepGreedy([
    ...shaped.outputs,
    ...prompts.flatMap((prompt, i) => {
      const text = texts[questions.length + i]
      return text === undefined ? [] : [{ prompt, text }]
    }),
  ])
  const missed = score.misses.map((m) => m.number)
  const probe: ProbeResult = {
    seed: PROBE_DEFAULT_SEED,
    questions: score.questions,
    correct: score.correct,
    accuracy: score.accuracy,
    missed,
    cut: cutQuestions,
    greedy,
    ...(failed + shaped.failed > 0 && { failed: failed + shaped.failed }),
  }
  const ms = performance.now() - started
  const cutText = cutQuestions
    ? ` (${cutQuestions} of ${questions.length} replies reached max-tokens ${settings.maxTokens}: ${CUT_HINT})`
    : ''
  const failedText = failed
    ? `; ${failed} of ${jobs.length} requests failed twice (within max-error-share ${formatPercent(maxErrorShare)}): their questions count as wrong, their prompts are left out of agreement`
    : ''
  const shapedText = shaped.outputs.length ? ` + ${shaped.outputs.length} benchmark-shaped` : ''
  const summary = `quality probe ${questions.length} questions + ${prompts.length} prompts${shapedText} in ${formatDuration(ms)}: accuracy ${formatPercent(score.accuracy)}${cutText}${failedText}`
  return { probe, ms, summary }
}

/**
 * The benchmark-shaped greedy requests (quality/greedy.ts), one at a time. One that fails is sent once more; one
 * that fails again is left out of agreement and counted, like a probe request.
 */
async function benchmarkShaped(
  client: BenchClient,
  inputTokens: number,
  signal: AbortSignal,
): Promise<{ outputs: GreedyOutput[]; failed: number }> {
  const outputs: GreedyOutput[] = []
  let failed = 0
  for (let i = 0; i < BENCHMARK_SHAPED_REQUESTS; i++) {
    const ask = () => client.benchmarkShaped(inputTokens, GREEDY_MAX_TOKENS, i, signal)
    let reply = await ask()
    if (reply.error && !signal.aborted) reply = await ask()
    if (signal.aborted) throw new Error('quality probe: cancelled')
    if (reply.error) failed++
    else outputs.push({ prompt: benchmarkShapedKey(i, inputTokens), text: reply.text })
  }
  return { outputs, failed }
}
