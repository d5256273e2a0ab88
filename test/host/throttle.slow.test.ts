/** What slowed a round: counters that moved between two readings, or a reason active after it. */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { GpuState } from '../../src/core/host.js'
import { slowdowns, watchRound } from '../../src/host/index.js'
import { scriptedSmi } from './smi.js'

const gpu = (over: Partial<GpuState> = {}): GpuState => ({
  active: [],
  counters: { sw_thermal_slowdown: 0, sw_power_cap: 500 },
  ...over,
})

describe('slowdowns', () => {
  it.each<[string, GpuState, string[]]>([
    ['nothing moved', gpu(), []],
    [
      'a counter moved',
      gpu({ counters: { sw_thermal_slowdown: 1_500_000, sw_power_cap: 500 } }),
      ['GPU 0 sw_thermal_slowdown +1.5s'],
    ],
    [
      'a reason active at the end',
      gpu({ active: ['hw_power_brake_slowdown'] }),
      ['GPU 0 hw_power_brake_slowdown active'],
    ],
    [
      'a counter the first reading lacked is not a move',
      gpu({ counters: { sw_thermal_slowdown: 0, sw_power_cap: 500, hw_slowdown: 9 } }),
      [],
    ],
  ])('%s', (_, after, expected) => {
    expect(slowdowns([gpu()], [after])).toEqual(expected)
  })
})

describe('watchRound (scripted nvidia-smi)', () => {
  it('counters that move during the round name the reason', async () => {
    const smi = scriptedSmi('throttle-always', await mkdtemp(join(tmpdir(), 'lbg-smi-')))
    const end = await watchRound(smi)
    expect(await end({ startMs: 0, endMs: 1 })).toEqual({ disturbed: 'GPU 0 sw_thermal_slowdown +1s' })
  })

  it('a quiet round says nothing; without GPU information there is nothing to say', async () => {
    const window = { startMs: 0, endMs: 1 }
    expect(await (await watchRound(scriptedSmi('ok')))(window)).toEqual({})
    expect(await (await watchRound(scriptedSmi('old-driver')))(window)).toEqual({})
  })
})
