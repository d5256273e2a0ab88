/**
 * An SLO the engine cannot meet, end to end through the pipeline in-process against the simulator (vLLM dialect):
 * `tight` asks every request for a TTFT and a TPOT of at most 1 ms, which the simulated engine (at half its modelled
 * times: TTFT tens of ms for 256 prompt tokens, TPOT several ms) never reaches, so goodput is 0 % at the baseline and
 * in the PR run. The cell is inconclusive, never a pass, and the report's why says the SLO is out of reach, quoting
 * its bounds and what the median request measured. `loose` (an e2e bound of 10 minutes)
 * meets its SLO on both sides and passes: the gate judges goodput alone here, so nothing else decides either cell.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatDuration } from '../../src/core/format.js'
import { startSimServer, type SimServer } from '../../src/sim/index.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'

let sim: SimServer
let cwd: string

const config = (port: number) =>
  [
    'version: 1',
    'defaults: { rounds: 2, discard: 1, confirm: 0, max-rounds: 2, request-timeout: 30s, quality: false, api: chat }',
    'gate: { goodput: { max-drop: 5 } }',
    'scenarios:',
    '  tight: { input-tokens: 256, output-tokens: 16, concurrency: 2, slo: { ttft: 1ms, tpot: 1ms } }',
    '  loose: { input-tokens: 256, output-tokens: 16, concurrency: 2, slo: { e2e: 10m } }',
    'targets:',
    `  sim: { engine: vllm, url: http://127.0.0.1:${port}, model: Qwen/Qwen3.5-0.8B }`,
    '',
  ].join('\n')

beforeAll(async () => {
  sim = await startSimServer({ profile: 'vllm-qwen35-08b', port: 0, timeScale: 2, seed: 7 })
  cwd = await mkdtemp(join(tmpdir(), 'lbg-slo-reach-'))
  await writeFile(join(cwd, 'matrix.yml'), config(sim.port))
})
afterAll(async () => {
  await sim?.close()
})

const pipeline = inProcessPipeline(() => cwd)

describe('an SLO neither side meets, on the simulator', () => {
  it('is inconclusive with a why that says the SLO is out of reach; a met SLO passes', async () => {
    const base = await pipeline({ config: 'matrix.yml', resultsDir: 'base' })
    const baseCells = (await readResultsFile(base.resultsFile)).cells
    for (const c of baseCells) expect(c.status, c.error ?? '').toBe('ok')
    expect(baseCells.find((c) => c.id === 'sim/tight')!.metrics!.goodput).toBe(0)
    expect(baseCells.find((c) => c.id === 'sim/loose')!.metrics!.goodput).toBe(1)

    const pr = await pipeline({
      config: 'matrix.yml',
      resultsDir: 'pr',
      mode: 'compare',
      baselineFile: base.resultsFile,
    })
    const cells = (await readResultsFile(pr.resultsFile)).cells
    const tight = cells.find((c) => c.id === 'sim/tight')!
    const loose = cells.find((c) => c.id === 'sim/loose')!
    expect(tight.metrics!.goodput).toBe(0)
    const why =
      `goodput 0% → 0%: the SLO TTFT ≤ 1ms, TPOT ≤ 1ms is out of reach on both sides ` +
      `(p50 TTFT ${formatDuration(tight.metrics!.ttft_ms.p50)}, TPOT ${formatDuration(tight.metrics!.tpot_ms.p50)} here; ` +
      'no good request at the baseline either); a looser SLO or a faster engine would decide'
    expect(tight.verdict.metrics.goodput).toMatchObject({ status: 'inconclusive', needs: 'slo', reason: why })
    expect(tight.verdict.status).toBe('inconclusive')
    expect(loose.verdict.metrics.goodput?.status).toBe('pass')
    expect(loose.verdict.status).toBe('pass')

    // Not a silent pass: the run is inconclusive, and the report and the comment give the why.
    expect(pr.verdict).toBe('inconclusive')
    expect(pr.failure).toBeUndefined()
    for (const text of [pr.summary, await readFile(pr.commentFile!, 'utf8')]) {
      expect(text).toContain('sim/tight')
      expect(text).toContain('is out of reach on both sides')
      expect(text).toContain('TPOT ≤ 1ms')
    }
  }, 120_000)
})
