/**
 * The llama.cpp adapter's prefix-cache reset against the real llama-server: every slot erased with
 * `POST /slots/{id}?action=erase` (the count from `/props` `total_slots`), which this build accepts only when started
 * with `--slot-save-path`, and answers 501 otherwise. The erase is seen working: a prompt the slot had cached
 * (`timings.cache_n` > 0 on its second sending) is evaluated whole again after it.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import { httpPorts } from '../../src/engines/http.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { startTarget, type RunningTarget } from '../../src/server/index.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { targetPlan } from '../server/target.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const PROMPT =
  'the of and to in is it that was for on are as with his they at be this from have or by one had not but what all were'

const stops: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

async function launch(extra: string): Promise<RunningTarget> {
  const command = `'${llama.server}' -m '${llama.model}' --port {port} -c 1024 -np 2 -t 1 ${extra}`.trim()
  const target = targetPlan({ id: 'llama', engine: 'llamacpp', launch: command, readyTimeoutMs: 60_000 })
  const running = await startTarget({
    target,
    adapter: llamacpp,
    logDir: await mkdtemp(join(tmpdir(), 'lbg-real-reset-')),
    log: memoryLogger(),
    smoke: async (baseUrl) => {
      const client = createBenchClient({
        baseUrl,
        adapter: llamacpp,
        model: undefined,
        api: 'completions',
        requestTimeoutMs: 60_000,
        maxConcurrency: 1,
      })
      await client.smoke().finally(() => client.close())
    },
  })
  stops.push(() => running.stop())
  return running
}

/** The prompt on slot 0 with its cache on; how many of its tokens came from the slot's cache. */
async function cachedTokens(baseUrl: string): Promise<number> {
  const answer = await fetch(`${baseUrl}/completion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: PROMPT, n_predict: 2, cache_prompt: true, id_slot: 0, temperature: 0 }),
  })
  const body = (await answer.json()) as { timings?: { cache_n?: number } }
  return body.timings?.cache_n ?? -1
}

describe('llama-server prefix-cache reset', () => {
  it('erases every slot when started with --slot-save-path, and the slot then prefills the prompt again', async () => {
    const slots = await mkdtemp(join(tmpdir(), 'lbg-real-slots-'))
    const running = await launch(`--slot-save-path '${slots}'`)
    await cachedTokens(running.baseUrl)
    const warm = await cachedTokens(running.baseUrl)
    expect(warm).toBeGreaterThan(10)
    const outcome = await llamacpp.resetPrefixCache!(httpPorts(), running.baseUrl)
    expect(outcome).toEqual({ reset: true, via: 'POST /slots/{0…1}?action=erase' })
    const after = await cachedTokens(running.baseUrl)
    console.log(`slot 0 cached ${warm} prompt tokens before the erase, ${after} after`)
    expect(after).toBe(0)
    await running.stop()
  }, 180_000)

  it('names the 501 this build answers without --slot-save-path', async () => {
    const running = await launch('')
    const outcome = await llamacpp.resetPrefixCache!(httpPorts(), running.baseUrl)
    expect(outcome.reset).toBe(false)
    expect(outcome.reason).toMatch(/^llamacpp answered 501 to POST \/slots\/\d\?action=erase: .*--slot-save-path/)
    await running.stop()
  }, 180_000)
})
