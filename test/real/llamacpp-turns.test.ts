/**
 * Conversations (`turns`) on the real llama.cpp server, through the pipeline in-process against a server this test
 * starts. A conversation's requests share their prefix with the turn before, so the gate turns the slot's prompt
 * cache on (`cache_prompt: true`, tools/server/README.md) and one slot keeps the conversation so far: turn t
 * evaluates only what it added and takes the rest, the previous turn's prompt, from the cache. The server's own
 * counters say so per steady round (one conversation a round): Δ`prompt_tokens_cached_total` +
 * Δ`prompt_tokens_total` is every turn's prompt, and a cell of three turns has cached its second and third turns'
 * prefixes — the third's, the second turn's whole prompt, larger than the second's, the first turn's — so the
 * cached tokens grow turn by turn: Δcached(3 turns) − Δcached(2 turns) > Δcached(2 turns).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULTS, type ActionOptions } from '../../src/config/inputs.js'
import type { CellResult, ResultsFile } from '../../src/core/results.js'
import { runPipeline } from '../../src/run/pipeline.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const INPUT = 128
const TURN_TOKENS = 64
const OUTPUT = 16
const LIMIT_MS = 300_000
const PROMPT = 'llamacpp:prompt_tokens_total'
const CACHED = 'llamacpp:prompt_tokens_cached_total'

let server: ChildProcess | undefined
let url = ''

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  return port
}

beforeAll(async () => {
  const port = await freePort()
  const args = ['-m', llama.model, '--port', String(port), '-c', '4096', '-np', '1', '--metrics', '-t', '1']
  server = spawn(llama.server, args, { stdio: 'ignore' })
  url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return
    await sleep(100)
  }
  throw new Error('llama-server did not answer /health within 60 s')
}, 70_000)
afterAll(() => {
  server?.kill('SIGKILL')
})

/** Δcached and Δevaluated of each steady round, checked against the prompts the round's turns sent. */
function steadyDeltas(cell: CellResult): { cached: number; evaluated: number }[] {
  expect([cell.status, cell.error, cell.flags]).toEqual(['ok', null, []])
  return cell.rounds
    .filter((r) => r.steady)
    .map((round) => {
      const prompts = round.turns!.map((t) => t.prompt_tokens)
      expect(prompts[0]).toBe(INPUT)
      for (let t = 1; t < prompts.length; t++) expect(prompts[t]).toBeGreaterThan(prompts[t - 1] + OUTPUT)
      const d = round.server!.deltas
      const sent = prompts.reduce((s, p) => s + p, 0)
      console.log(
        `${cell.id} round ${round.index}: prompts ${prompts.join(', ')}; cached ${d[CACHED]}, evaluated ${d[PROMPT]}`,
      )
      expect(d[CACHED] + d[PROMPT]).toBe(sent)
      return { cached: d[CACHED], evaluated: d[PROMPT] }
    })
}

describe('llama-server with conversations', () => {
  it(
    'a turns: 3 cell runs, and the slot serves each turn the previous turn’s prompt from its cache',
    async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'lbg-real-turns-'))
      const scenario = (turns: number) =>
        `{ input-tokens: ${INPUT}, output-tokens: ${OUTPUT}, concurrency: 1, turns: ${turns}, turn-tokens: ${TURN_TOKENS} }`
      await writeFile(
        join(cwd, 'bench.yml'),
        [
          'version: 1',
          'defaults: { rounds: 2, discard: 1, confirm: 0, request-timeout: 60s, quality: false, max-error-share: 0%, api: chat }',
          'scenarios:',
          `  two: ${scenario(2)}`,
          `  three: ${scenario(3)}`,
          'targets:',
          `  llama: { engine: llamacpp, url: ${url} }`,
          '',
        ].join('\n'),
      )
      const result = await runPipeline({
        options: { ...DEFAULTS, config: 'bench.yml', mode: 'run', resultsDir: 'out' } as ActionOptions,
        context: { event: 'workflow_dispatch', sha: 'f00d', ref: 'refs/heads/main', runUrl: '' },
        log: memoryLogger(),
        toolVersion: 'test',
        cwd,
        detectHardware: async () => 'real-llamacpp',
      })
      const results = JSON.parse(await readFile(result.resultsFile, 'utf8')) as ResultsFile
      const cell = (id: string) => results.cells.find((c) => c.id === id)!
      const [two] = steadyDeltas(cell('llama/two'))
      const three = cell('llama/three')
      const [threeDeltas] = steadyDeltas(three)
      const prompts = three.rounds.find((r) => r.steady)!.turns!.map((t) => t.prompt_tokens)
      // Turn 2 takes about turn 1's prompt from the cache, turn 3 about turn 2's: more than turn 2 took.
      expect(two.cached).toBeGreaterThanOrEqual(prompts[0] - 8)
      expect(threeDeltas.cached - two.cached).toBeGreaterThan(two.cached)
      expect(threeDeltas.cached).toBeGreaterThanOrEqual(prompts[0] + prompts[1] - 16)
      expect(three.metrics!.ttft_per_1k_added).toBeGreaterThan(0)
    },
    LIMIT_MS,
  )
})
