/**
 * The box watch as a target's rounds get it (target-run/box-round.ts): a launched engine's round carries its launch
 * age, a `url:` target's says this run did not launch it; beside a GPU watch, the round keeps the GPU watch's record
 * and verdict and adds `host`.
 */
import { describe, expect, it } from 'vitest'
import type { RoundWatch } from '../../src/core/telemetry.js'
import { boxRoundWatch, withBoxWatch } from '../../src/target-run/box-round.js'
import { targetPlan } from '../server/target.js'

const window = { startMs: 0, endMs: 1 }

async function oneRound(watch: RoundWatch) {
  const end = await watch()
  return end(window)
}

describe('boxRoundWatch', () => {
  it("gives a launched engine's round its launch age, and a url: target's none", async () => {
    const preflight = { state: {} }
    const launched = boxRoundWatch({
      target: targetPlan(),
      preflight,
      deps: {},
      // Launched 2 s before the clock's origin: the age is at least that whenever the round starts.
      engine: () => ({ launchedAt: -2000, pgid: 1 }),
    })
    const { host } = await oneRound(launched)
    expect(host!.launchAgeMs).toBeGreaterThanOrEqual(2000)
    expect(host!.attached).toBeUndefined()

    const attached = boxRoundWatch({
      target: targetPlan({ external: true }),
      preflight,
      deps: {},
      engine: () => ({}),
    })
    const round = await oneRound(attached)
    expect(round.host!.attached).toBe(true)
    expect(round.host!.launchAgeMs).toBeUndefined()
  })

  it("keeps the GPU watch's record and verdict and adds the box's", async () => {
    const gpu: RoundWatch = async () => async () => ({
      disturbed: 'GPU 0 sw_thermal_slowdown +1s',
      gpu: { devices: [] },
    })
    const box = boxRoundWatch({ target: targetPlan(), preflight: { state: {} }, deps: {}, engine: () => ({}) })
    const round = await oneRound(withBoxWatch(gpu, box))
    expect(round.disturbed).toBe('GPU 0 sw_thermal_slowdown +1s')
    expect(round.gpu).toEqual({ devices: [] })
    expect(round.host!.samples).toBeGreaterThanOrEqual(2)
    expect((await oneRound(withBoxWatch(undefined, box))).host).toBeDefined()
  })
})
