/**
 * A shared prefix on the real llama.cpp server, through the bundled CLI. For a `prefix-tokens` scenario the gate
 * turns the server's prompt cache on (`cache_prompt: true`; otherwise it is off), so a slot that served the
 * previous request of the round keeps the shared prefix in its KV cache and evaluates only the unique rest. The
 * server says so itself: per steady round Δ`prompt_tokens_cached_total` covers the prefix of every request and
 * Δ`prompt_tokens_total` only what follows it, together the prompt tokens the gate sent; and the scenario's TTFT
 * is below the same prompts' without a prefix (at about 2,000 prompt tokens/s on 2 cores, 448 tokens more to
 * evaluate cost about 0.2 s a request).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const INPUT = 512
const PREFIX = 448
const REQUESTS = 4
const LIMIT_MS = 300_000
const PROMPT = 'llamacpp:prompt_tokens_total'
const CACHED = 'llamacpp:prompt_tokens_cached_total'

describe('llama-server with a shared prefix', () => {
  it(
    'serves the prefix from its cache: lower TTFT, and /metrics shows the cached part not recomputed',
    async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'lbg-real-prefix-'))
      const launch = `'${llama.server}' -m '${llama.model}' --port {port} -c 4096 -np 1 --metrics -t 1`
      await writeFile(
        join(cwd, 'bench.yml'),
        [
          'version: 1',
          'hardware: real-llamacpp',
          'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 60s, request-timeout: 60s, quality: false, max-error-share: 0% }',
          'scenarios:',
          `  shared: { input-tokens: ${INPUT}, output-tokens: 8, concurrency: 1, requests: ${REQUESTS}, prefix-tokens: ${PREFIX} }`,
          `  unique: { input-tokens: ${INPUT}, output-tokens: 8, concurrency: 1, requests: ${REQUESTS} }`,
          'targets:',
          `  llama: { engine: llamacpp, launch: ${JSON.stringify(launch)} }`,
          '',
        ].join('\n'),
      )
      const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: LIMIT_MS })
      expect(run.code, run.stdout + run.stderr).toBe(0)
      const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
      const cell = (id: string) => results.cells.find((c) => c.id === id)!
      const shared = cell('llama/shared')
      const unique = cell('llama/unique')
      for (const round of shared.rounds.filter((r) => r.steady)) {
        expect(round.achieved.promptTokens).toEqual({ min: INPUT, max: INPUT })
        const d = round.server!.deltas
        console.log(`shared round ${round.index}: cached ${d[CACHED]}, evaluated ${d[PROMPT]} of ${REQUESTS * INPUT}`)
        expect(d[CACHED] + d[PROMPT]).toBe(REQUESTS * INPUT)
        // Every request's prefix (BOS included) came from the cache, and none of its unique part did.
        expect(d[CACHED]).toBeGreaterThanOrEqual(REQUESTS * (PREFIX - 1))
        expect(d[CACHED]).toBeLessThanOrEqual(REQUESTS * (PREFIX + 8))
      }
      for (const round of unique.rounds.filter((r) => r.steady)) expect(round.server!.deltas[CACHED]).toBe(0)
      const [withPrefix, without] = [shared, unique].map((c) => c.metrics!.ttft_ms.mean)
      console.log(`TTFT: shared prefix ${withPrefix.toFixed(1)} ms, unique ${without.toFixed(1)} ms`)
      expect(withPrefix).toBeLessThan(without)
    },
    LIMIT_MS + 10_000,
  )
})
