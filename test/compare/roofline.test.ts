/**
 * The roofline arithmetic: a 27B-class NVFP4 model (≈ 16.4 GB read per step) on a GB10 (273 GB/s) decodes at most
 * ≈ 16.6 tok/s per stream; the KV cache of every sequence at the cell's depth and concurrency lowers the ceiling; a
 * mixture of experts reads only the experts its batch routes to; a decode above the ceiling is an error, a drafting
 * one only above the ceiling times its acceptance length.
 */
import { describe, expect, it } from 'vitest'
import { cellRoofline, rooflineProblem, stepWeights, type RooflineCell } from '../../src/compare/roofline-ceiling.js'
import {
  ceilingText,
  gpuBandwidth,
  hasFigures,
  type CellRoofline,
  type RooflineFigures,
} from '../../src/core/roofline.js'

const GB10 = { value: 273e9, source: 'setting bandwidth' }
const NVFP4_27B = { weights: 16.4e9, source: 'setting model-bytes' }
const single = (decodeTps: number, more: Partial<RooflineCell> = {}): RooflineCell => ({
  decodeTps,
  inputTokens: 1024,
  outputTokens: 128,
  concurrency: 1,
  drafting: false,
  ...more,
})

function figures(r: CellRoofline | undefined): RooflineFigures {
  expect(hasFigures(r)).toBe(true)
  return r as RooflineFigures
}

describe('cellRoofline', () => {
  it('gives 273 GB/s ÷ 16.4 GB = 16.6 tok/s for a 27B NVFP4 model on a GB10, and the share of it', () => {
    const r = figures(cellRoofline({ bandwidth: GB10, model: NVFP4_27B }, single(10.65)))
    expect(r.ceilingTps).toBeCloseTo(16.646, 2)
    expect(r.share).toBeCloseTo(0.64, 2)
    expect(r.depth).toBe(1024 + 64)
    expect(r.step).toEqual({ bytes: 16.4e9, weights: 16.4e9, kv: 0, source: 'setting model-bytes' })
  })

  it('adds the KV cache of each sequence at input + half the output tokens', () => {
    const model = { ...NVFP4_27B, kvPerToken: 32768 }
    const r = figures(
      cellRoofline({ bandwidth: GB10, model }, single(5, { inputTokens: 99912, outputTokens: 256, concurrency: 4 })),
    )
    const kv = 4 * (99912 + 128) * 32768
    expect(r.step.kv).toBe(kv)
    expect(r.ceilingTps).toBeCloseTo(273e9 / (16.4e9 + kv), 6)
  })

  it('leaves out what a step does not read, and of a mixture of experts the experts no token of the batch routes to', () => {
    const moe = { weights: 20e9, unread: 1e9, source: 'files', experts: { bytes: 16e9, count: 128, used: 8 } }
    // One token: 8 of 128 experts; 8 tokens: 1 − (120/128)^8 of them.
    expect(stepWeights(moe, 1)).toBeCloseTo(3e9 + 16e9 / 16, 0)
    expect(stepWeights(moe, 8)).toBeCloseTo(3e9 + 16e9 * (1 - (120 / 128) ** 8), 0)
    expect(stepWeights({ ...NVFP4_27B, unread: 2.5e9 }, 4)).toBe(13.9e9)
  })

  it('says why there is none when only one side is known, and nothing when neither is', () => {
    expect(cellRoofline({}, single(10))).toBeUndefined()
    expect(cellRoofline({ bandwidth: GB10, unavailable: 'model "Qwen/X" is not a local path' }, single(10))).toEqual({
      unavailable: 'model "Qwen/X" is not a local path',
    })
    expect(cellRoofline({ model: NVFP4_27B }, single(10))).toEqual({
      unavailable: "no memory bandwidth known for this box's GPU: set bandwidth (e.g. 273GB/s)",
    })
  })
})

describe('rooflineProblem', () => {
  const box = { bandwidth: GB10, model: NVFP4_27B }

  it.each([
    [16.5, undefined],
    [16.7, 'error'],
    [40, 'error'],
  ])('a plain decode of %s tok/s against a 16.6 tok/s ceiling: %s', (decode, expected) => {
    const cell = single(decode)
    const problem = rooflineProblem(cellRoofline(box, cell), cell)
    expect(problem === undefined ? undefined : 'error').toBe(expected)
  })

  it('names the figures', () => {
    const cell = single(40)
    expect(rooflineProblem(cellRoofline(box, cell), cell)).toBe(
      'decode 40.0 tok/s is faster than memory bandwidth allows: check the measurement (240 % of the ceiling ' +
        '16.6 tok/s (273 GB/s from setting bandwidth ÷ 16.4 GB per step: weights 16.4 GB from setting model-bytes, ' +
        'KV 0 B at depth 1,088 × 1))',
    )
  })

  it.each([
    [45, undefined],
    [55, 'error'],
  ])(
    'a drafting decode of %s tok/s at acceptance length 3 is held to 3 × 16.6 = 49.9 tok/s: %s',
    (decode, expected) => {
      const cell = single(decode, { drafting: true, acceptanceLength: 3 })
      const r = figures(cellRoofline(box, cell))
      expect(r.ceilingTps).toBeCloseTo(49.94, 1)
      expect(r.acceptanceLength).toBe(3)
      const problem = rooflineProblem(r, cell)
      expect(problem === undefined ? undefined : 'error').toBe(expected)
      if (problem) expect(problem).toContain('× acceptance length 3.00 = 49.9 tok/s')
    },
  )

  it('does not hold a drafting cell whose acceptance length is unknown', () => {
    const cell = single(40, { drafting: true })
    expect(rooflineProblem(cellRoofline(box, cell), cell)).toBeUndefined()
  })
})

describe('gpuBandwidth', () => {
  it.each([
    ['NVIDIA GB10', 273e9],
    ['NVIDIA H100 80GB HBM3', 3.35e12],
    ['NVIDIA H100 NVL', 3.9e12],
    ['NVIDIA H100 PCIe', 2e12],
    ['NVIDIA H200', 4.8e12],
  ])('%s: %d bytes/s', (name, bytes) => {
    expect(gpuBandwidth(name)?.value).toBe(bytes)
  })

  it('states what a GB10 reads in practice beside its nominal figure, and the ceiling at it', () => {
    const box = { bandwidth: gpuBandwidth('NVIDIA GB10')!, model: NVFP4_27B }
    expect(box.bandwidth.measured?.value).toBe(232e9)
    const r = figures(cellRoofline(box, single(10.65)))
    expect(r.bandwidth.measured).toEqual({ bytesPerS: 232e9, source: 'a saturating read, antirez/ds4 #773' })
    // 232 / 273 of the nominal ceiling: 16.6 → 14.1 tok/s.
    const realistic = (r.ceilingTps * 232e9) / 273e9
    expect(realistic).toBeCloseTo(14.1, 1)
    expect(ceilingText(r)).toContain(`≈ ${realistic.toFixed(1)} tok/s at the 232 GB/s measured`)
    expect(ceilingText(figures(cellRoofline({ bandwidth: GB10, model: NVFP4_27B }, single(10))))).not.toContain(
      'measured',
    )
  })

  it('knows no figure for a GPU the table lacks', () => {
    expect(gpuBandwidth('NVIDIA GeForce RTX 4090')).toBeUndefined()
  })
})
