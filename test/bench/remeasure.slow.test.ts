/** A steady round something disturbed (a GPU slowdown) is measured again, at most twice a cell; past that it is kept and flagged. */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import { MAX_REMEASURES } from '../../src/bench/rounds/rounds.js'
import type { ScenarioPlan } from '../../src/core/plan.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'
import { plainAdapter } from './adapter.js'

const scenario: ScenarioPlan = { id: 's', inputTokens: 16, outputTokens: 4, concurrency: 2, requests: 4 }
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** A watch that reports the given verdicts in turn, one per watched round, and counts the rounds it saw. */
function scripted(verdicts: Array<string | undefined>) {
  const seen = { watched: 0 }
  const watch = async () => {
    const verdict = verdicts[seen.watched++]
    return async () => (verdict ? { disturbed: verdict } : {})
  }
  return { watch, seen }
}

async function measure(verdicts: Array<string | undefined>, rounds = 3, discard = 1) {
  const server = await startScheduledServer({ ttftMs: 5, intervalMs: 1 })
  closers.push(() => server.close())
  const client = createBenchClient({
    baseUrl: server.url,
    adapter: plainAdapter,
    model: 'm',
    api: 'completions',
    requestTimeoutMs: 2000,
    maxConcurrency: 2,
  })
  closers.push(() => client.close())
  const { watch, seen } = scripted(verdicts)
  const notes: string[] = []
  const m = await client.measure({
    scenario,
    rounds,
    discard,
    maxErrorShare: 0,
    seed: 1,
    watch,
    onDisturbed: (d) => notes.push(`${d.round}:${d.again}/${d.max}`),
  })
  return { m, seen, notes }
}

describe('disturbed rounds', () => {
  it('a disturbed round is measured again and the cell records it; discarded rounds are not watched', async () => {
    const { m, seen, notes } = await measure([undefined, 'GPU 0 sw_thermal_slowdown +1s', undefined])
    expect(seen.watched).toBe(3)
    expect(m.rounds.map((r) => [r.index, r.steady])).toEqual([
      [0, false],
      [1, true],
      [2, true],
    ])
    expect(m.remeasured).toEqual([{ round: 2, reason: 'GPU 0 sw_thermal_slowdown +1s' }])
    expect(notes).toEqual(['2:1/2'])
    expect(m.flags).toEqual([])
  })

  it('past the bound the round is kept and the cell is flagged, so it is not compared', async () => {
    const reason = 'GPU 0 hw_slowdown active'
    const { m, seen } = await measure([reason, reason, reason], 1, 0)
    expect(seen.watched).toBe(MAX_REMEASURES + 1)
    expect(m.rounds).toHaveLength(1)
    expect(m.remeasured).toHaveLength(MAX_REMEASURES)
    expect(m.flags).toEqual([`throttled: round 1 (${reason}) kept after ${MAX_REMEASURES} re-measurements`])
  })

  it('quiet rounds record nothing', async () => {
    const { m } = await measure([])
    expect(m).not.toHaveProperty('remeasured')
  })
})
