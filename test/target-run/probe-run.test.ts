/**
 * The quality probe when some of its requests fail: a failed request is sent once more; one that fails again
 * leaves its question wrong and its greedy prompt out, up to `max-error-share` of the probe's requests; past
 * that the probe fails, naming the last failure. The client answers every question right (solveQuestion is
 * the simulator's own solver), so accuracy shows exactly what the failures cost.
 */
import { describe, expect, it } from 'vitest'
import type { BenchClient } from '../../src/bench/measure.js'
import { RequestError } from '../../src/core/errors.js'
import type { QualityProbeSettings } from '../../src/core/plan.js'
import { GREEDY_PROMPTS, PROBE_DEFAULT_SEED, probeQuestions, solveQuestion } from '../../src/quality/index.js'
import { runProbe } from '../../src/target-run/probe-run.js'

const settings: QualityProbeSettings = { questions: 40, prompts: 12, maxTokens: 32, concurrency: 8 }
const questions = probeQuestions(PROBE_DEFAULT_SEED, settings.questions)
const JOBS = settings.questions + settings.prompts

/** Answers right, except that each prompt in `fails` fails that many times before it answers. */
function client(fails: Map<string, number>): BenchClient & { sent: number } {
  const stub = {
    sent: 0,
    async complete(prompt: string) {
      stub.sent++
      const left = fails.get(prompt) ?? 0
      if (left > 0) {
        fails.set(prompt, left - 1)
        return { text: '', error: new RequestError('HTTP 500: boom', 'http', 500) }
      }
      const answer = solveQuestion(prompt)
      return {
        text: answer === undefined ? `a greedy reply to ${prompt.slice(0, 12)}` : `The answer is ${answer}.`,
        outputTokens: 5,
      }
    },
  }
  return stub as unknown as BenchClient & { sent: number }
}

const failing = (prompts: string[], times: number) => new Map(prompts.map((p) => [p, times]))
const signal = new AbortController().signal

describe('runProbe with failing requests', () => {
  it('a request that fails once is sent again and answers: nothing is lost', async () => {
    const stub = client(failing([questions[0].text, questions[1].text, GREEDY_PROMPTS[0]], 1))
    const run = await runProbe(stub, settings, 'completions', signal, 0)
    expect(stub.sent).toBe(JOBS + 3)
    expect(run.probe).toMatchObject({ accuracy: 1, missed: [] })
    expect(run.probe.failed).toBeUndefined()
    expect(run.probe.greedy).toHaveLength(settings.prompts)
  })

  it('within max-error-share: a question that fails twice counts as wrong, a prompt that does is left out', async () => {
    const stub = client(failing([questions[4].text, questions[9].text, GREEDY_PROMPTS[2]], 2))
    // 10 % of 52 requests: up to 5 may fail twice.
    const run = await runProbe(stub, settings, 'completions', signal, 0.1)
    expect(run.probe).toMatchObject({ correct: 38, accuracy: 38 / 40, missed: [5, 10], failed: 3 })
    expect(run.probe.greedy.map((g) => g.prompt)).not.toContain(GREEDY_PROMPTS[2])
    expect(run.probe.greedy).toHaveLength(settings.prompts - 1)
    expect(run.summary).toMatch(/3 of 52 requests failed twice \(within max-error-share 10%\)/)
  })

  it('past max-error-share the probe fails, naming the failure', async () => {
    const stub = client(
      failing(
        questions.slice(0, 6).map((q) => q.text),
        2,
      ),
    )
    await expect(runProbe(stub, settings, 'completions', signal, 0.1)).rejects.toThrow(
      /quality probe failed: 6 requests failed twice, more than max-error-share allows of 52 \(last: HTTP 500: boom\)/,
    )
    const strict = client(failing([questions[0].text], 2))
    await expect(runProbe(strict, settings, 'completions', signal, 0)).rejects.toThrow(/1 request failed twice/)
  })
})
