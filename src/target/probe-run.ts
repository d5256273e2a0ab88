/**
 * The output quality probe of one target, run once after readiness and before measuring: the
 * seeded probe questions and the first `prompts` greedy prompts, each one untimed greedy request
 * (temperature 0, end-of-sequence honoured) through the target's bench client, `concurrency` at
 * a time. Questions are scored by exact match; the greedy outputs are kept, clipped, so that a
 * baseline made from this run holds them. A request that fails fails the probe: a target whose
 * output cannot be checked is not measured.
 */
import { setMaxListeners } from 'node:events'
import type { BenchClient } from '../bench/measure.js'
import { formatDuration, formatPercent } from '../core/format.js'
import type { Api, QualityProbeSettings } from '../core/plan.js'
import type { ProbeResult } from '../core/quality.js'
import {
  CUT_HINT,
  GREEDY_MAX_TOKENS,
  GREEDY_PROMPTS,
  PROBE_DEFAULT_SEED,
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

/**
 * Runs the jobs `concurrency` at a time, in order of the list; the first failure stops handing out more and is thrown.
 * The requests share one signal of their own, linked to the run's, that may hold a listener per request in flight.
 */
async function runJobs(
  client: BenchClient,
  jobs: readonly Job[],
  o: { concurrency: number; api: Api; signal: AbortSignal },
): Promise<{ texts: string[]; cut: boolean[] }> {
  const local = new AbortController()
  setMaxListeners(2 * o.concurrency + 1, local.signal)
  const cancel = () => local.abort(o.signal.reason)
  o.signal.addEventListener('abort', cancel, { once: true })
  if (o.signal.aborted) cancel()
  const texts = new Array<string>(jobs.length)
  const cut = new Array<boolean>(jobs.length).fill(false)
  let next = 0
  let failure: string | undefined
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !local.signal.aborted && failure === undefined) {
      const i = next++
      const { text, outputTokens, error } = await client.complete(jobs[i].prompt, jobs[i].maxTokens, {
        api: o.api,
        signal: local.signal,
      })
      if (error) failure ??= error.message
      texts[i] = text
      cut[i] = outputTokens !== undefined && outputTokens >= jobs[i].maxTokens
    }
  }
  await Promise.all(Array.from({ length: Math.min(o.concurrency, jobs.length) }, worker)).finally(() =>
    o.signal.removeEventListener('abort', cancel),
  )
  if (local.signal.aborted) throw new Error('quality probe: cancelled')
  if (failure !== undefined) throw new Error(`quality probe failed: a request failed (${failure})`)
  return { texts, cut }
}

/** Probes a ready target; throws naming the failed request when one fails. */
export async function runProbe(
  client: BenchClient,
  settings: QualityProbeSettings,
  api: Api,
  signal: AbortSignal,
): Promise<ProbeRun> {
  const started = performance.now()
  const questions = probeQuestions(PROBE_DEFAULT_SEED, settings.questions)
  const prompts = GREEDY_PROMPTS.slice(0, settings.prompts)
  const jobs: Job[] = [
    ...questions.map((q) => ({ prompt: q.text, maxTokens: settings.maxTokens })),
    ...prompts.map((prompt) => ({ prompt, maxTokens: GREEDY_MAX_TOKENS })),
  ]
  const { texts, cut } = await runJobs(client, jobs, {
    concurrency: settings.concurrency,
    api: settings.api ?? api,
    signal,
  })
  const score = scoreProbe(questions, texts.slice(0, questions.length))
  const cutQuestions = cut.slice(0, questions.length).filter(Boolean).length
  const greedy = keepGreedy(prompts.map((prompt, i) => ({ prompt, text: texts[questions.length + i] })))
  const missed = score.misses.map((m) => m.number)
  const probe: ProbeResult = {
    seed: PROBE_DEFAULT_SEED,
    questions: score.questions,
    correct: score.correct,
    accuracy: score.accuracy,
    missed,
    cut: cutQuestions,
    greedy,
  }
  const ms = performance.now() - started
  const cutText = cutQuestions
    ? ` (${cutQuestions} of ${questions.length} replies reached max-tokens ${settings.maxTokens}: ${CUT_HINT})`
    : ''
  const summary = `quality probe ${questions.length} questions + ${prompts.length} prompts in ${formatDuration(ms)}: accuracy ${formatPercent(score.accuracy)}${cutText}`
  return { probe, ms, summary }
}
