/**
 * Conversations (`turns`) through the pipeline in-process, against the simulator's vLLM dialect and its prefix cache
 * (sim/prefix-cache.ts): a drafting profile (MTP k=3) serves a `turns: 4` cell healthy, each turn resending the
 * conversation so far, so the cache serves every earlier turn and a turn costs the prefill of what it added. At the
 * PR the `drafter-drops-prefix-cache` fault drops a request's blocks when it ends, so every turn is prefilled whole:
 * TTFT per 1,000 added prompt tokens regresses, and the why names the prefix-cache hit rate that fell.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimServer, type SimServer } from '../../src/sim/index.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'

const PROFILE = 'vllm-qwen38-27b-nvfp4-mtp3'
const TURNS = 4
const INPUT = 512
const TURN_TOKENS = 128
const OUTPUT = 16

let healthy: SimServer
let faulty: SimServer
let cwd: string

const config = (server: SimServer) =>
  [
    'version: 1',
    'defaults: { rounds: 3, discard: 1, confirm: 0, max-rounds: 3, request-timeout: 30s, quality: false, api: chat }',
    'scenarios:',
    `  conv: { input-tokens: ${INPUT}, output-tokens: ${OUTPUT}, concurrency: 2, turns: ${TURNS}, turn-tokens: ${TURN_TOKENS} }`,
    'targets:',
    `  sim: { engine: vllm, url: http://127.0.0.1:${server.port}, model: Qwen3.8-27B-NVFP4 }`,
    '',
  ].join('\n')

beforeAll(async () => {
  ;[healthy, faulty] = await Promise.all(
    (['none', 'drafter-drops-prefix-cache'] as const).map((fault) =>
      startSimServer({ profile: PROFILE, port: 0, timeScale: 5, seed: 3, fault }),
    ),
  )
  cwd = await mkdtemp(join(tmpdir(), 'lbg-turns-'))
  await writeFile(join(cwd, 'base.yml'), config(healthy))
  await writeFile(join(cwd, 'pr.yml'), config(faulty))
})
afterAll(async () => {
  await Promise.all([healthy?.close(), faulty?.close()])
})

const pipeline = inProcessPipeline(() => cwd)
const read = readResultsFile

describe('conversations (turns) on the simulator', () => {
  it('a drafter that drops the cached blocks regresses TTFT per 1k added tokens, and the why names the hit rate', async () => {
    const base = await pipeline({ config: 'base.yml', resultsDir: 'base' })
    const baseCell = (await read(base.resultsFile)).cells[0]
    expect(baseCell.status, baseCell.error ?? '').toBe('ok')
    expect(baseCell.workload).toMatchObject({ turns: TURNS, turnTokens: TURN_TOKENS, api: 'chat' })
    expect(baseCell.flags).toEqual([])
    for (const round of baseCell.rounds.filter((r) => r.steady)) {
      // Two conversations of four turns each; the prompt grows by the answer and the new message every turn.
      expect(round.requests).toBe(2 * TURNS)
      expect(round.turns!.map((t) => t.turn)).toEqual([1, 2, 3, 4])
      expect(round.turns![0].prompt_tokens).toBe(INPUT)
      for (const t of round.turns!.slice(1)) {
        // The sim's template: 4 tokens per message; a message calibrated alone to 128 costs 121 words + 7.
        expect(t.added_tokens).toBe(OUTPUT + 4 + (TURN_TOKENS - 7) + 4)
      }
      expect(round.server?.rates?.prefix_cache_hit_rate).toBeGreaterThan(0.5)
      // Served from the cache, the fourth turn prefills 145 tokens against the first turn's 512.
      expect(round.turns![3].ttft_ms).toBeLessThan(round.turns![0].ttft_ms)
    }
    const healthyFigure = baseCell.metrics!.ttft_per_1k_added!
    expect(healthyFigure).toBeGreaterThan(0)
    // The report's details: the conversation's figure, and each steady round's turns.
    expect(base.summary).toContain(
      `conversations of ${TURNS} turns (+${TURN_TOKENS} tokens a turn) · TTFT per 1k added tokens`,
    )
    expect(base.summary).toMatch(
      /- round 2: turn 1 TTFT \d+ms · 512 tok; turn 2 TTFT \d+ms · 657 tok \(\+145\); turn 3/,
    )

    const pr = await pipeline({ config: 'pr.yml', resultsDir: 'pr', mode: 'compare', baselineFile: base.resultsFile })
    const cell = (await read(pr.resultsFile)).cells[0]
    const figure = cell.metrics!.ttft_per_1k_added!
    console.log(
      `TTFT per 1k added tokens: healthy ${healthyFigure.toFixed(0)} ms, re-prefilling ${figure.toFixed(0)} ms`,
    )
    for (const round of cell.rounds.filter((r) => r.steady)) expect(round.server?.rates?.prefix_cache_hit_rate).toBe(0)
    // Re-prefilled whole, every later turn's TTFT is above the same turn's served from the cache.
    const turnTtft = (c: typeof cell) => (turn: number) =>
      c.rounds.filter((r) => r.steady).reduce((sum, r) => sum + r.turns![turn - 1].ttft_ms, 0)
    for (const turn of [2, 3, 4]) expect(turnTtft(cell)(turn)).toBeGreaterThan(turnTtft(baseCell)(turn))
    expect(figure).toBeGreaterThan(2 * healthyFigure)
    const verdict = cell.verdict.metrics['ttft-per-1k-added']
    expect(verdict?.status, JSON.stringify(cell.verdict)).toBe('regression')
    expect(cell.verdict.serverChanges?.join('\n')).toMatch(/prefix-cache hit rate [\d.]+ % → 0 %/)
    expect(pr.summary).toMatch(/\*\*sim\/conv\*\*: .*TTFT per 1k added tokens.*prefix-cache hit rate [\d.]+ % → 0 %/)
    expect(pr.failure).toBeDefined()
  }, 120_000)
})
