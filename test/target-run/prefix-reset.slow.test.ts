/**
 * A clean prefix cache per cell, and the per-request record, through `runTarget` against one simulator server
 * emulating vLLM (started once per case, in this process; sim/prefix-cache.ts is vLLM's automatic prefix caching).
 *
 * Two cells that share a prefix: two `url:` targets on that one server running the same `prefix-tokens` scenario,
 * as two runs against a server that outlives them do. Each target's client sends the same prompts in the same
 * order (bench/prompts/indices.ts), so without a reset the second cell's first round finds every prompt of the
 * first cell's first round cached: all but the last block of each. With the reset before each cold round, a
 * request can be served at most its shared prefix (`prefix-tokens`), by the requests of its own round. `discard: 0`
 * makes the first round steady, so `rounds[0].server` holds its counter deltas. The same run with the vLLM
 * adapter's reset taken away shows the inherited hits, so the check can fail.
 *
 * The same cells' `trace.json` passes a trace viewer's format checks, with exactly 4 tracks per round at
 * concurrency 4 and no overlapping spans on a track; `requests.jsonl` has one JSON line per request of each
 * steady round.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import type { CellResult } from '../../src/core/results.js'
import { httpPorts } from '../../src/engines/http.js'
import { sglang } from '../../src/engines/sglang.js'
import { vllm } from '../../src/engines/vllm.js'
import { startSimServer } from '../../src/sim/index.js'
import { runTarget } from '../../src/target-run/run-target.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { checkTrace } from '../helpers/trace-check.js'

const HITS = 'vllm:prefix_cache_hits_total'
const INPUT = 512
const PREFIX = 256
const REQUESTS = 8
const CONCURRENCY = 4

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function sim(profile: string): Promise<string> {
  const server = await startSimServer({ profile, port: 0, timeScale: 20, seed: 3 })
  closers.push(() => server.close())
  return `http://127.0.0.1:${server.port}`
}

/** Both targets' cells, measured one target after the other on the server at `url`, and the results folder. */
async function twoTargets(url: string): Promise<{ cells: CellResult[]; results: string }> {
  const target = { engine: 'vllm', url }
  const plan = buildPlan(
    {
      version: 1,
      defaults: { rounds: 2, discard: 0, confirm: 0, 'max-rounds': 2, quality: false, 'request-timeout': '30s' },
      scenarios: {
        shared: {
          'input-tokens': INPUT,
          'output-tokens': 4,
          concurrency: CONCURRENCY,
          requests: REQUESTS,
          'prefix-tokens': PREFIX,
        },
      },
      targets: { first: target, second: target },
    },
    { configPath: 'bench.yml', resolvedPath: '/dev/null' },
  )
  const results = await mkdtemp(join(tmpdir(), 'lbg-prefix-reset-'))
  const deps = { log: memoryLogger(), logDir: join(results, 'logs'), signal: new AbortController().signal, seed: 1 }
  const cells: CellResult[] = []
  for (const t of plan.targets)
    cells.push(
      ...(await runTarget(
        t,
        plan.cells.filter((c) => c.target === t),
        deps,
      )),
    )
  return { cells, results }
}

const coldHits = (cell: CellResult) => cell.rounds[0].server?.deltas[HITS]

describe('a clean prefix cache per cell', () => {
  it("empties the cache before each cold round: the second cell inherits none of the first cell's prompts", async () => {
    const { cells } = await twoTargets(await sim('vllm-qwen36-27b-fp8'))
    expect(cells.map((c) => c.status)).toEqual(['ok', 'ok'])
    for (const c of cells) expect(c.prefixCacheReset).toEqual({ reset: true, via: 'POST /reset_prefix_cache' })
    const [first, second] = cells.map(coldHits)
    console.log(`cold-round prefix-cache hits with the reset: first ${first}, second ${second} tokens`)
    // Each request at most its shared prefix: the other requests of its own round warmed nothing more.
    expect(second).toBeLessThanOrEqual(REQUESTS * PREFIX)
    expect(first).toBeLessThanOrEqual(REQUESTS * PREFIX)
  }, 120_000)

  it('without the reset the second cell’s cold round is served the first cell’s prompts', async () => {
    const reset = vllm.resetPrefixCache
    const adapter = vllm as { resetPrefixCache?: typeof reset }
    adapter.resetPrefixCache = undefined
    try {
      const { cells } = await twoTargets(await sim('vllm-qwen36-27b-fp8'))
      expect(cells.map((c) => c.status)).toEqual(['ok', 'ok'])
      for (const c of cells) expect(c.prefixCacheReset).toEqual({ reset: false, reason: 'vllm offers no reset' })
      const second = coldHits(cells[1])
      console.log(`cold-round prefix-cache hits without the reset: second ${second} tokens`)
      expect(second).toBeGreaterThan(REQUESTS * PREFIX)
    } finally {
      adapter.resetPrefixCache = reset
    }
  }, 120_000)
})

describe('the per-request record of a concurrency-4 cell', () => {
  it('trace.json loads as a trace with 4 tracks a round; requests.jsonl has a line per request', async () => {
    const { cells, results } = await twoTargets(await sim('vllm-qwen36-27b-fp8'))
    const cell = cells[1]
    expect(cell.requestFiles).toEqual({ dir: 'requests/second/shared', requests: 2 * REQUESTS })
    const dir = join(results, cell.requestFiles!.dir)
    const trace = checkTrace(await readFile(join(dir, 'trace.json'), 'utf8'))
    expect(trace.problems).toEqual([])
    expect(trace.overlaps).toEqual([])
    expect([...trace.tracks.keys()]).toEqual([1, 2])
    for (const tids of trace.tracks.values()) expect([...tids].sort()).toEqual([1, 2, 3, 4])
    const rounds = trace.events.filter((e) => e.name === 'process_name').map((e) => e.args?.name)
    expect(rounds).toEqual(['round 0', 'round 1'])
    const text = await readFile(join(dir, 'requests.jsonl'), 'utf8')
    const lines = text.trimEnd().split('\n')
    const parsed = lines.map((l) => JSON.parse(l) as { round: number; ok: boolean; output_tokens: number })
    for (const index of [0, 1]) expect(parsed.filter((l) => l.round === index)).toHaveLength(REQUESTS)
    expect(parsed.every((l) => l.ok && l.output_tokens === 4)).toBe(true)
  }, 120_000)
})

describe('the simulator’s cache-control endpoints', () => {
  it('serves /reset_prefix_cache always and /flush_cache where it emulates SGLang', async () => {
    const http = httpPorts()
    const asVllm = await sim('vllm-qwen36-27b-fp8')
    const asSglang = await sim('sglang-qwen38-27b-nvfp4-nextn')
    expect((await http.get(`${asVllm}/reset_prefix_cache`, 5000)).status).toBe(405)
    expect(await sglang.resetPrefixCache!(http, asSglang)).toEqual({ reset: true, via: 'POST /flush_cache' })
    const outcome = await sglang.resetPrefixCache!(http, asVllm)
    expect(outcome).toEqual({
      reset: false,
      reason: 'sglang offers no reset here: POST /flush_cache answered 404: Not Found',
    })
  }, 60_000)

  it('refuses to empty the cache while a request is in flight (409), as newer vLLM releases do', async () => {
    const url = await sim('vllm-qwen36-27b-fp8')
    const abort = new AbortController()
    const answer = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a b c', max_tokens: 4000, ignore_eos: true, stream: true }),
      signal: abort.signal,
    })
    const reader = answer.body!.getReader()
    await reader.read()
    try {
      expect(await vllm.resetPrefixCache!(httpPorts(), url)).toEqual({
        reset: false,
        reason: 'vllm answered 409 to POST /reset_prefix_cache: Prefix cache reset failed.',
      })
    } finally {
      abort.abort()
      await reader.cancel().catch(() => undefined)
    }
  }, 60_000)
})
