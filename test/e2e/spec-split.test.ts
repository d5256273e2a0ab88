/**
 * The spec-decode split end to end, through the bundled action and the simulator: an MTP k=3 profile (acceptance
 * 0–3 drafts at 20/25/25/30 %, 2.65 tokens a 148 ms verify step) whose acceptance differs from request to request
 * (`accept-cv` 25 %: with four requests a round, a round's acceptance length varies by several percent, which is
 * decode's noise too). Against a baseline run of it, at another seed:
 *
 * - the same profile passes;
 * - the verify step 10 % slower (163 ms) regresses decode by about 9 %, and the line names the step time;
 * - acceptance 15 % lower (weights 30/30/25/15 %, 2.25 tokens a step) at the same step regresses decode by about
 *   15 %, and the line names the acceptance length.
 *
 * Each round's acceptance length comes from the simulator's vLLM counters over the round (1 + Δaccepted /
 * Δdrafts); its step time is acceptance length ÷ the round's decode tok/s, so the two multiply back to decode.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'

const WEIGHTS = [0.2, 0.25, 0.25, 0.3]
const LOWER = [0.3, 0.3, 0.25, 0.15]

function profile(name: string, stepMs: number, accept: number[]): string {
  return JSON.stringify({
    name,
    model: 'sim-mtp',
    source: 'test profile: MTP k=3 with request-to-request acceptance spread',
    prefill: { 'tokens-per-s': 4000 },
    decode: { 'step-ms': stepMs },
    speculative: { method: 'mtp', k: 3, accept, 'accept-cv': 0.25 },
    'jitter-cv': 0.02,
  })
}

function config(file: string, seed: number): string {
  return [
    'version: 1',
    'defaults: { rounds: 6, discard: 1, max-rounds: 8, confirm: 1, ready-timeout: 20s, request-timeout: 60s, quality: false }',
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  chat: { input-tokens: 64, output-tokens: 64, concurrency: 1, requests: 4 }',
    'targets:',
    `  mtp: { engine: sim, profile: ./${file}, time-scale: 10, seed: ${seed} }`,
    '',
  ].join('\n')
}

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-split-e2e-'))
  await writeFile(join(cwd, 'base.json'), profile('mtp-base', 148, WEIGHTS))
  await writeFile(join(cwd, 'step.json'), profile('mtp-step', 148 * 1.1, WEIGHTS))
  await writeFile(join(cwd, 'accept.json'), profile('mtp-accept', 148, LOWER))
  await writeFile(join(cwd, 'base.yml'), config('base.json', 1))
  await writeFile(join(cwd, 'same.yml'), config('base.json', 2))
  await writeFile(join(cwd, 'step.yml'), config('step.json', 2))
  await writeFile(join(cwd, 'accept.yml'), config('accept.json', 2))
}, 30_000)

describe('spec-decode split (bundled action, sim MTP k=3 with acceptance spread)', () => {
  it('splits decode per round, passes identical code and attributes each regression to its factor', async () => {
    const base = await runPrAction({ cwd, config: 'base.yml', out: 'base' })
    expect(base.code, base.stdout).toBe(0)
    for (const r of base.cell.rounds.filter((x) => x.steady)) {
      const m = r.metrics
      expect(m.accept_length).toBeGreaterThan(1)
      // decode = acceptance length ÷ step time, per round, by construction.
      expect((1000 * m.accept_length!) / m.step_ms!).toBeCloseTo(m.decode_tps.mean, 6)
    }
    // Over every steady round the profile's 2.65 tokens a step holds within its spread.
    expect(base.cell.metrics!.accept_length!).toBeGreaterThan(2.65 * 0.9)
    expect(base.cell.metrics!.accept_length!).toBeLessThan(2.65 * 1.1)
    expect(base.report).toMatch(/accept len \d\.\d\d · step \d+/)

    const same = await runPrAction({ cwd, config: 'same.yml', out: 'same', baseline: 'base/results.json' })
    const sameDecode = same.cell.verdict.metrics.decode
    console.log(`identical: ${sameDecode?.reason}`)
    // Identical code is never a regression. Its decode is read over ~350 ms windows, which a loaded runner can move
    // by a quarter (two late wake-ups of WAKE_MS, test/helpers/load.ts): the base run slowed that way reads the same
    // code as faster, an improvement, so only the direction that matters here is held.
    expect(['pass', 'improvement'], same.stdout).toContain(sameDecode?.status)
    expect(sameDecode?.factors?.map((f) => f.metric)).toEqual(['accept-length', 'step-time'])

    const step = await runPrAction({ cwd, config: 'step.yml', out: 'step', baseline: 'base/results.json' })
    const stepDecode = step.cell.verdict.metrics.decode
    console.log(`step +10 %: ${stepDecode?.reason}`)
    expect(stepDecode?.status, step.stdout).toBe('regression')
    expect(stepDecode?.reason).toMatch(/decode −\d+\.\d%: acceptance length [−+]\d\.\d%, step time \+(9|10|11)\.\d%/)
    expect(step.report).toMatch(/\*\*mtp\/chat\*\*: .*step time \+(9|10|11)\.\d%/)
    expect(step.code).toBe(1)

    const accept = await runPrAction({ cwd, config: 'accept.yml', out: 'accept', baseline: 'base/results.json' })
    const acceptDecode = accept.cell.verdict.metrics.decode
    console.log(`acceptance −15 %: ${acceptDecode?.reason}`)
    expect(acceptDecode?.status, accept.stdout).toBe('regression')
    expect(acceptDecode?.reason).toMatch(/acceptance length −1\d\.\d%, step time [−+][0-4]\.\d%/)
    expect(accept.code).toBe(1)
  }, 600_000)
})
