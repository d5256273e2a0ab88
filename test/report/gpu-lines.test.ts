/** The details' per-round GPU line: what the GPU reported, energy per token, a clock drop; nothing where no round was sampled. */
import { describe, expect, it } from 'vitest'
import { roundsSection } from '../../src/report/markdown/details.js'
import { gpuLines } from '../../src/report/markdown/gpu-lines.js'
import { cell, round } from '../helpers/builders.js'

describe('gpuLines', () => {
  it('one line per sampled round; a gauge the GPU did not report is not shown', () => {
    const sampled = round(1, true, { energy: 0.4213 })
    sampled.gpu = {
      devices: [
        {
          index: 0,
          samples: 6,
          powerW: { mean: 231.2, max: 262.5 },
          smClockMhz: { mean: 1980, max: 1980 },
          temperatureC: { mean: 61.5, max: 63 },
        },
      ],
      energyJ: 693.6,
      clockDrop: 'GPU 0 SM clock down to 1200 MHz for 2 samples (0.5 s), under 90 % of its round median 1980 MHz',
    }
    const lines = gpuLines([round(0, false), sampled])!
    expect(lines).toBe(
      '- round 1: GPU 0 231 W (max 263 W), 1,980 MHz SM, 61.5 °C (max 63.0 °C) · 0.421 J/token · GPU 0 SM clock down to 1200 MHz for 2 samples (0.5 s), under 90 % of its round median 1980 MHz',
    )
    expect(roundsSection([cell('t/s', [round(0, false), sampled])])).toContain(lines)
  })

  it('names the GPUs counted once, before the rounds; an environment value is escaped', () => {
    const counted = { gpus: [{ index: 1 }], of: 8, from: "the target's env CUDA_VISIBLE_DEVICES=1 <b>@x</b>" }
    const rounds = [1, 2].map((i) => {
      const r = round(i, true, { energy: 0.5 })
      r.gpu = { devices: [{ index: 1, samples: 3, powerW: { mean: 100, max: 100 } }], energyJ: 50, counted }
      return r
    })
    const lines = gpuLines(rounds)!.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^- energy and telemetry over GPU 1 of 8 \(the target's env CUDA\\_VISIBLE\\_DEVICES=1 /)
    expect(lines[0]).not.toContain('<b>')
    expect(lines[0]).not.toContain('@x')
    expect(lines[1]).toBe('- round 1: GPU 1 100 W (max 100 W) · 0.500 J/token')
  })

  it('no sampled round: no lines', () => {
    expect(gpuLines([round(0, true), round(1, true)])).toBeUndefined()
  })
})
