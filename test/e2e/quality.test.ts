/**
 * The output quality guard end to end, through the bundled action: a first run of a healthy
 * simulated engine is the baseline file; PR runs then compare with it. Fast garbage must never
 * pass as a speed-up: degenerate output at twice the speed fails the step, wrong answers fail it,
 * and a model whose answers are all wrong on both sides passes, since nothing changed, saying that the
 * probe cannot see wrong answers there.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'
import { shareOff, WAKE_MS } from '../helpers/load.js'

/**
 * The decode limit of these runs, which are about output quality, not speed. A request's decode is read over its
 * 48 tokens: at the profile's 10.61 ms TPOT and time-scale 2, a 255 ms window, whose end stamps a loaded runner may
 * each wake up late by WAKE_MS — up to 24 % off, on either side. Twice that keeps "the same speed" a pass however
 * busy the runner, while twice as fast (+100 %) is still an improvement.
 */
const DECODE_LIMIT = Math.ceil(200 * shareOff((48 * 10.61) / 2, WAKE_MS))

let cwd: string

interface Side {
  /** Simulated seconds per wall second: 4 decodes twice as fast as 2. */
  timeScale: number
  fault?: 'degenerate' | 'wrong-answers' | 'benchmark-garbage'
}

async function writeConfig(name: string, side: Side): Promise<void> {
  const fault = side.fault ? `, fault: ${side.fault}` : ''
  await writeFile(
    join(cwd, name),
    [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 1, quality: { questions: 12, prompts: 4, concurrency: 4 } }',
      'gate:',
      `  decode: { max-regression: ${DECODE_LIMIT}% }`,
      'scenarios:',
      '  chat: { input-tokens: 32, output-tokens: 48, concurrency: 2 }',
      'targets:',
      `  small: { engine: sim, profile: vllm-qwen35-08b, time-scale: ${side.timeScale}, load-time: 0ms, seed: 3${fault} }`,
      '',
    ].join('\n'),
  )
}

/** One action run on a pull request; `baseline` names a results file to compare with, else the run only measures. */
async function run(side: Side, out: string, baseline?: string) {
  await writeConfig(`${out}.yml`, side)
  return runPrAction({ cwd, config: `${out}.yml`, out, baseline })
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-quality-'))
})

describe('output quality guard', () => {
  let healthy: Awaited<ReturnType<typeof run>>
  let wrong: Awaited<ReturnType<typeof run>>

  beforeAll(async () => {
    ;[healthy, wrong] = await Promise.all([
      run({ timeScale: 2 }, 'base'),
      run({ timeScale: 2, fault: 'wrong-answers' }, 'base-wrong'),
    ])
  }, 240_000)

  it('a healthy baseline: the probe answers every question, greedy outputs are kept, no degenerate output', () => {
    expect(healthy.code, healthy.stdout).toBe(0)
    expect(healthy.stdout).toMatch(
      /small: quality probe 12 questions \+ 4 prompts \+ 2 benchmark-shaped in [\d.]+m?s: accuracy 100%/,
    )
    const q = healthy.cell.quality!
    expect(q.probe).toMatchObject({ seed: 1, questions: 12, correct: 12, accuracy: 1, missed: [] })
    // The four probe prompts and two benchmark-shaped requests of the scenario's 32-token length.
    expect(q.probe!.greedy.map((g) => g.prompt.slice(0, 20))).toEqual([
      'benchmark-shaped #1:',
      'benchmark-shaped #2:',
      ...Array.from({ length: 4 }, (_, i) => q.probe!.greedy[i + 2].prompt.slice(0, 20)),
    ])
    expect(q.probe!.greedy[0].prompt).toBe('benchmark-shaped #1: a 32-token filler prompt, ignore_eos')
    expect(q.probe!.greedy).toHaveLength(6)
    expect(q.probeMs).toBeGreaterThan(0)
    expect(q.degenerate).toMatchObject({ degenerate: 0, share: 0 })
    expect(q.degenerate!.judged).toBeGreaterThan(0)
  })

  it('degenerate output while decode gets twice as fast: regression, the step fails, the report names the output', async () => {
    const pr = await run({ timeScale: 4, fault: 'degenerate' }, 'pr-degenerate', 'base/results.json')
    expect(pr.code, pr.stdout).toBe(1)
    expect(pr.cell.verdict.status).toBe('regression')
    expect(pr.cell.verdict.metrics.decode?.status).toBe('improvement')
    expect(pr.cell.quality!.degenerate!.share).toBe(1)
    // Every reply runs to max-tokens (the server's usage says so), and the probe line says what that means.
    expect(pr.cell.quality!.probe!.cut).toBe(12)
    expect(pr.stdout).toContain(
      'accuracy 0% (12 of 12 replies reached max-tokens 32: a model that reasons before answering needs a larger quality.max-tokens)',
    )
    expect(pr.cell.verdict.failures?.join('\n')).toMatch(
      /output degenerate: 100% of responses repeat one fragment \("'s"\); baseline 0%/,
    )
    expect(pr.cell.verdict.confirmed).toBe(1)
    expect(pr.report).toContain('output degenerate: 100% of responses repeat one fragment')
    expect(pr.results.summary?.verdict).toBe('regression')
  }, 120_000)

  it('healthy output at the same speed passes, with full agreement', async () => {
    const pr = await run({ timeScale: 2 }, 'pr-healthy', 'base/results.json')
    expect(pr.code, pr.stdout).toBe(0)
    expect(pr.cell.verdict.status).toBe('pass')
    expect(pr.cell.quality!.agreement).toMatchObject({ mean: 1, prompts: 6 })
    expect(pr.report).toMatch(/acc 100% · agree 1\.00/)
  }, 120_000)

  it('right probe answers but another text for benchmark-shaped requests, twice as fast: agreement fails the step', async () => {
    const pr = await run({ timeScale: 4, fault: 'benchmark-garbage' }, 'pr-bench-garbage', 'base/results.json')
    expect(pr.code, pr.stdout).toBe(1)
    expect(pr.cell.verdict.status).toBe('regression')
    expect(pr.cell.verdict.metrics.decode?.status).toBe('improvement')
    // The probe sees nothing wrong: every answer right, every probe prompt as the baseline's.
    expect(pr.cell.quality!.probe!.accuracy).toBe(1)
    expect(pr.cell.quality!.degenerate!.share).toBe(0)
    // The benchmark-shaped pair shares (almost) nothing with the baseline's: their mean is the cell's figure.
    expect(pr.cell.quality!.agreement!.mean).toBeLessThan(0.2)
    expect(pr.cell.quality!.agreement!.worst).toMatch(/^"benchmark-shaped #\d/)
    expect(pr.cell.verdict.failures?.join('\n')).toMatch(/agreement/)
  }, 120_000)

  it('wrong answers against a healthy baseline: the accuracy drop fails the step', async () => {
    const pr = await run({ timeScale: 2, fault: 'wrong-answers' }, 'pr-wrong', 'base/results.json')
    expect(pr.code, pr.stdout).toBe(1)
    expect(pr.cell.verdict.status).toBe('regression')
    expect(pr.cell.quality!.probe!.accuracy).toBe(0)
    expect(pr.cell.quality!.probe!.missed).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    expect(pr.report).toContain('accuracy 0% (baseline 100%): dropped 100 points, limit 5')
    // A failed quality is bold, not marked: the failure says more than the mark would.
    expect(pr.report).toContain('| **acc 0% · agree 1.00** |')
  }, 120_000)

  it('answers all wrong on both sides: nothing changed, passes', async () => {
    expect(wrong.code, wrong.stdout).toBe(0)
    expect(wrong.cell.quality!.probe!.accuracy).toBe(0)
    const pr = await run({ timeScale: 2, fault: 'wrong-answers' }, 'pr-wrong-both', 'base-wrong/results.json')
    expect(pr.code, pr.stdout).toBe(0)
    expect(pr.cell.verdict.status).toBe('pass')
    // Passing is not silence: the verdict says the probe cannot see wrong answers on this target.
    expect(pr.cell.quality!.probe!.cut).toBe(0)
    expect(pr.cell.verdict.note).toContain(
      'accuracy 0% (baseline 0%): too few right answers for the probe to see wrong ones',
    )
    expect(pr.report).toContain('too few right answers for the probe to see wrong ones')
    expect(pr.report).toContain('| acc 0% ⚠️ · agree 1.00 |')
  }, 120_000)
})
