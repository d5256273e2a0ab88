/** One round's GPU telemetry from sampler rows: gauges per GPU, energy over the round's window, SM clock drops. */
import { describe, expect, it } from 'vitest'
import { clockDrop, integrate, parseSample, summarizeGpu, type GpuSample } from '../../src/host/index.js'

const row = (at: number, over: Partial<GpuSample> = {}): GpuSample => ({
  at,
  index: 0,
  powerW: 100,
  smClockMhz: 1980,
  memClockMhz: 2619,
  temperatureC: 55,
  utilizationPct: 97,
  ...over,
})

describe('parseSample', () => {
  it('reads a row; [N/A] and [Not Supported] fields are absent, never 0', () => {
    expect(parseSample('0, 231.45, 1980, 2619, 61, 100', 5)).toEqual(
      row(5, { powerW: 231.45, temperatureC: 61, utilizationPct: 100 }),
    )
    expect(parseSample('1, [N/A], 2405, [N/A], 41, [Not Supported]', 5)).toEqual({
      at: 5,
      index: 1,
      smClockMhz: 2405,
      temperatureC: 41,
    })
  })

  it.each(['', 'No devices were found', '0, 100, 1980', 'x, 1, 2, 3, 4, 5', '0.5, 1, 2, 3, 4, 5'])(
    '%j is no row',
    (line) => {
      expect(parseSample(line, 0)).toBeUndefined()
    },
  )
})

describe('integrate', () => {
  it('a constant power over the window is power × time, whatever the samples’ phase', () => {
    expect(
      integrate(
        [
          { at: 130, value: 100 },
          { at: 630, value: 100 },
        ],
        { startMs: 0, endMs: 1000 },
      ),
    ).toBeCloseTo(100)
    expect(integrate([{ at: 999, value: 50 }], { startMs: 0, endMs: 2000 })).toBeCloseTo(100)
  })

  it('trapezoids between samples (exact for a ramp), the end samples held to the edges', () => {
    // 100 W at 0.2 s rising to 200 W at 1.2 s: 0.2 s × 100 + 1 s × 150 + 0.3 s × 200 = 230 J.
    const points = [
      { at: 1200, value: 200 },
      { at: 200, value: 100 },
      { at: 700, value: 150 },
    ]
    expect(integrate(points, { startMs: 0, endMs: 1500 })).toBeCloseTo(230)
  })
})

describe('summarizeGpu', () => {
  const window = { startMs: 1000, endMs: 3000 }

  it('gauges per GPU over the samples inside the window; energy summed over GPUs', () => {
    const samples = [
      row(900, { powerW: 20 }), // before the first request: idle, not counted
      row(1200, { powerW: 100, temperatureC: 50 }),
      row(1200, { index: 1, powerW: 300 }),
      row(2200, { powerW: 200, temperatureC: 60 }),
      row(2200, { index: 1, powerW: 300 }),
      row(3100, { powerW: 20 }), // after the last token
    ]
    const gpu = summarizeGpu(samples, window)!
    expect(gpu.devices).toHaveLength(2)
    expect(gpu.devices[0]).toMatchObject({
      index: 0,
      samples: 2,
      powerW: { mean: 150, max: 200 },
      temperatureC: { mean: 55, max: 60 },
    })
    // GPU 0: 0.2 s × 100 + 1 s × 150 + 0.8 s × 200 = 330 J; GPU 1: 2 s × 300 = 600 J.
    expect(gpu.energyJ).toBeCloseTo(930)
    expect(gpu.clockDrop).toBeUndefined()
  })

  it('a gauge no sample has is absent; without power there is no energy; no sample inside, no record', () => {
    const gpu = summarizeGpu([row(1500, { powerW: undefined, memClockMhz: undefined })], window)!
    expect(gpu.devices[0]).not.toHaveProperty('powerW')
    expect(gpu.devices[0]).not.toHaveProperty('memClockMhz')
    expect(gpu).not.toHaveProperty('energyJ')
    expect(summarizeGpu([row(900), row(3100)], window)).toBeUndefined()
  })
})

describe('clockDrop', () => {
  const clocks = (mhz: number[], util?: number[]) =>
    mhz.map((smClockMhz, i) => row(i * 500, { smClockMhz, utilizationPct: util?.[i] ?? 97 }))

  it.each<[string, number[], number[] | undefined, boolean]>([
    ['steady', [1980, 1965, 1980, 1950, 1980], undefined, false],
    ['two low samples in a row', [1980, 1980, 1200, 1250, 1980, 1980], undefined, true],
    ['one low sample is not a drop', [1980, 1200, 1980, 1200, 1980], undefined, false],
    // 1790 is 90.4 % of 1980.
    ['just above 90 % is no drop', [1980, 1790, 1790, 1980, 1980], undefined, false],
    ['a GPU idling between requests clocks down by design', [1980, 600, 600, 1980, 1980], [97, 5, 3, 97, 97], false],
    ['busy at a low clock is a drop', [1980, 1200, 1200, 1980, 1980], [97, 97, 96, 97, 97], true],
  ])('%s', (_, mhz, util, dropped) => {
    expect(Boolean(clockDrop(clocks(mhz, util)))).toBe(dropped)
  })

  it('names the GPU, the lowest clock, how long and the level', () => {
    expect(clockDrop(clocks([1980, 1980, 1200, 1250, 1980, 1980]))).toBe(
      'GPU 0 SM clock down to 1200 MHz for 2 samples (0.5 s), under 90 % of its round median 1980 MHz',
    )
  })
})
