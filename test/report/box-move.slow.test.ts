/**
 * The box-wide move end to end, on the simulator through the pipeline in this process: a baseline measured on an
 * unslowed box, then the same matrix on a box 8 % slower (the simulator's box factor, `LLM_BENCH_GATE_SIM_BOX_FACTOR`
 * 0.92, read by every launch as a host's speed is, src/sim/speed.ts). Every cell loses about 8 % of decode; the
 * headline says so in one line and points at the same-box A/B, and every cell keeps its own verdict below it.
 */
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BOX_FACTOR_VARIABLE } from '../../src/sim/speed.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'
import { profileJson } from '../sim/profile-file.js'

let cwd: string
const pipeline = inProcessPipeline(() => cwd, { config: 'bench.yml' })

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-box-move-'))
  await mkdir(join(cwd, 'profiles'))
  // A 50 ms decode step at any batch size, no jitter: 20 tok/s per stream, long beside a timer's lateness, what the box factor scales.
  await writeFile(
    join(cwd, 'profiles/box.json'),
    profileJson('box', { prefill: { 'tokens-per-s': 20000 }, decode: { 'step-ms': 50 } }),
  )
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'hardware: sim-box',
      'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 30s, quality: false }',
      'gate:',
      '  decode: { max-regression: 5% }',
      'scenarios:',
      '  one: { input-tokens: 32, output-tokens: 24, concurrency: 1 }',
      '  two: { input-tokens: 32, output-tokens: 24, concurrency: 2 }',
      'targets:',
      `  sim-a: { engine: sim, profile: ${join(cwd, 'profiles/box.json')} }`,
      `  sim-b: { engine: sim, profile: ${join(cwd, 'profiles/box.json')} }`,
      '',
    ].join('\n'),
  )
})

afterEach(() => {
  delete process.env[BOX_FACTOR_VARIABLE]
})

describe('a box 8 % slower than the baseline’s', () => {
  it('says so in one headline line; each cell keeps its verdict', async () => {
    delete process.env[BOX_FACTOR_VARIABLE]
    const base = await pipeline({ resultsDir: 'base' })
    expect(base.failure).toBeUndefined()
    process.env[BOX_FACTOR_VARIABLE] = '0.92'
    const slow = await pipeline({ mode: 'compare', baselineFile: base.resultsFile, resultsDir: 'slow' })
    const results = await readResultsFile(slow.resultsFile)
    const deltas = results.cells.map((c) => c.verdict.metrics.decode!.delta!)
    console.log(`decode changes on the slower box: ${deltas.map((d) => (d * 100).toFixed(2)).join(', ')} %`)
    for (const d of deltas) expect(d).toBeGreaterThan(-0.12)
    for (const d of deltas) expect(d).toBeLessThan(-0.05)

    // Three of the four suffice (two thirds): a round the timer delayed may set one cell apart (box-move.ts).
    const lines = slow.summary.split('\n').filter((l) => l.startsWith('📦'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^📦 [34] of 4 cells decode tok\/s −\d\.\d% … −\d\.\d% on `sim-box`: the box, not the code\? The same-box A\/B decides/,
    )
    // Below it, every cell as the gate decided it: none is hidden behind the line.
    for (const c of results.cells) expect(slow.summary).toContain(`**${c.id}**`)
    console.log(lines[0])
  }, 240_000)
})
