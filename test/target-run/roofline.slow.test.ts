/**
 * The roofline through one target's run, with real child processes: a fake engine streaming a 27B NVFP4 cell at
 * 40 tok/s on a 273 GB/s box (a 16.6 tok/s ceiling) is an error naming the figures; a drafting one is held to the
 * ceiling times its acceptance length, on both sides of it; the simulator's GB10 profile tells the gate its box, at
 * time scale 1 and 4, and decodes below its ceiling — which the report and the leaderboard show.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import { formatNumber } from '../../src/core/format.js'
import { hasFigures, type RooflineFigures } from '../../src/core/roofline.js'
import type { CellResult } from '../../src/core/results.js'
import { renderLeaderboard } from '../../src/report/index.js'
import { metricsSection } from '../../src/report/markdown/details.js'
import { readResults } from '../../src/store/index.js'
import { runTarget } from '../../src/target-run/run-target.js'
import { resultsFile } from '../helpers/builders.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { ROOT } from '../helpers/root.js'
import { killGroupQuietly } from '../server/procs.js'

// No bundle in unit tests: the sim adapter launches the CLI from source.
vi.mock('../../src/io/cli-entry.js', () => ({
  cliEntry: () => new URL('../sim/run-sim-cli.ts', import.meta.url).pathname,
}))

const FAKE = join(ROOT, 'test/helpers/fake-engine.mjs')
const spawned: number[] = []
afterEach(() => {
  for (const pgid of spawned.splice(0)) killGroupQuietly(pgid)
  vi.unstubAllEnvs()
})

const BOX = { bandwidth: '273GB/s', 'model-bytes': '16.4GB' }

async function run(target: Record<string, unknown>, scenario = { 'input-tokens': 16, 'output-tokens': 30 }) {
  const plan = buildPlan(
    {
      version: 1,
      defaults: { rounds: 2, discard: 1, 'ready-timeout': '30s', 'request-timeout': '30s', quality: false },
      scenarios: { s: { ...scenario, concurrency: 1 } },
      targets: { t: target },
    },
    { configPath: 'bench.yml', resolvedPath: '/dev/null' },
  )
  const logDir = await mkdtemp(join(tmpdir(), 'lbg-roof-'))
  const [cell] = await runTarget(plan.targets[0], plan.cells, {
    log: memoryLogger(),
    logDir: join(logDir, 'logs'),
    signal: new AbortController().signal,
    seed: 1,
    onSpawn: (pgid) => spawned.push(pgid),
  })
  return cell
}

function figures(cell: CellResult): RooflineFigures {
  expect(hasFigures(cell.roofline), JSON.stringify(cell.roofline ?? cell.error)).toBe(true)
  return cell.roofline as RooflineFigures
}

const fake = (flags: string) => `node ${FAKE} --dialect vllm --port {port} --ttft-ms 20 ${flags}`

describe('the roofline of a measured cell', () => {
  it('makes a non-drafting 27B NVFP4 cell at 40 tok/s on a 273 GB/s box an error naming the figures', async () => {
    const cell = await run({ engine: 'vllm', launch: fake('--itl-ms 25'), ...BOX })
    const r = figures(cell)
    expect(r.ceilingTps).toBeCloseTo(16.65, 1)
    expect(r.decodeTps).toBeGreaterThan(30)
    expect(r.bandwidth).toEqual({ bytesPerS: 273e9, source: 'setting bandwidth' })
    expect(cell.status).toBe('error')
    expect(cell.verdict.status).toBe('error')
    expect(cell.error).toMatch(
      /^decode \d+\.\d tok\/s is faster than memory bandwidth allows: check the measurement \(\d+ % of the ceiling 16\.6 tok\/s \(273 GB\/s from setting bandwidth ÷ 16\.4 GB per step: weights 16\.4 GB from setting model-bytes, KV 0 B at depth 31 × 1\)\)$/,
    )
  })

  it.each([
    // Three tokens per step every 75 ms: ≈ 40 tok/s, above the plain 16.6 but under 3 × 16.6 = 49.9.
    ['75', 'ok'],
    // Every 40 ms: ≈ 75 tok/s, above even 49.9.
    ['40', 'error'],
  ])(
    'holds a drafting cell (3 tokens per verify step) at a chunk every %s ms to 3 × the ceiling: %s',
    async (itl, status) => {
      const flags = `--itl-ms ${itl} --tokens-per-chunk 3 --spec-k 3 --spec-accepted 2`
      const cell = await run({ engine: 'vllm', launch: fake(flags), ...BOX })
      const r = figures(cell)
      // 30 tokens in 10 verify steps per request; the prompt's calibration requests draft a little less.
      expect(cell.specDecode?.acceptanceLength).toBeGreaterThan(2.8)
      expect(r.acceptanceLength).toBe(cell.specDecode?.acceptanceLength)
      expect(r.ceilingTps).toBeCloseTo(r.acceptanceLength! * 16.646, 1)
      expect(r.decodeTps).toBeGreaterThan(16.65)
      expect(cell.status).toBe(status)
      if (status === 'error')
        expect(cell.error).toMatch(/faster than memory bandwidth allows.*× acceptance length 2\.\d\d = /)
    },
  )

  it.each([1, 4])('shows the sim GB10 profile below its ceiling at time scale %s', async (timeScale) => {
    // The simulator's CLI runs from source.
    vi.stubEnv('NODE_OPTIONS', '--import tsx')
    const cell = await run(
      { engine: 'sim', profile: 'vllm-qwen38-27b-nvfp4', 'time-scale': timeScale, model: 'Qwen3.8-27B-NVFP4' },
      { 'input-tokens': 64, 'output-tokens': 16 },
    )
    expect(cell.status, cell.error ?? '').toBe('ok')
    const r = figures(cell)
    const scaled = timeScale === 1 ? '' : ` at time scale ${timeScale}`
    expect(r.bandwidth).toEqual({ bytesPerS: 273e9 * timeScale, source: `sim profile vllm-qwen38-27b-nvfp4${scaled}` })
    expect(r.step.weights).toBe(16.4e9)
    expect(r.step.kvPerToken).toBe(32768)
    // 8.05 tok/s of a 16.6 tok/s ceiling at any time scale: about 48 % (timers firing late on a busy host shorten
    // the decode span of a short reply, never the ceiling).
    expect(r.share).toBeGreaterThan(0.35)
    expect(r.share).toBeLessThan(0.75)
    const share = `${Math.round(r.share * 100)} % of roofline`
    expect(metricsSection([cell])).toContain(`decode ${formatNumber(r.decodeTps)} tok/s · ${share}`)
    const results = resultsFile([cell])
    expect(renderLeaderboard(results)).toContain(`· ${share}</span>`)
    // What the run writes reads back through the results file's schema.
    expect(readResults(JSON.stringify(results), 'results.json').cells[0].roofline).toEqual(r)
  })
})
