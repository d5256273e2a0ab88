import { describe, expect, it } from 'vitest'
import { formatDelta, formatNumber, formatPercent, formatSigned, plural } from '../../src/core/format.js'

describe('formatNumber', () => {
  it.each<[number | null | undefined, string]>([
    [12345.6, '12,346'],
    [523.4, '523'],
    [52.34, '52.3'],
    [5.234, '5.23'],
    [0.05234, '0.0523'],
    [0, '0'],
    [-45.5, '−45.5'],
    [Number.NaN, '—'],
    [Number.POSITIVE_INFINITY, '—'],
    [undefined, '—'],
    [null, '—'],
  ])('%s → %s', (value, text) => {
    expect(formatNumber(value)).toBe(text)
  })
})

describe('percentages', () => {
  it.each<[number, string]>([
    [0.05, '5%'],
    [0.123, '12.3%'],
    [0.0004, '0%'],
    [-0.1, '−10%'],
  ])('formatPercent(%s) → %s', (value, text) => {
    expect(formatPercent(value)).toBe(text)
  })

  it.each<[number | undefined, string]>([
    [-0.123, '−12.3%'],
    [0.04, '+4.0%'],
    [0, '0.0%'],
    [-0.0004, '0.0%'],
    [undefined, '—'],
  ])('formatDelta(%s) → %s', (value, text) => {
    expect(formatDelta(value)).toBe(text)
  })
})

describe('counts and signed values', () => {
  it.each<[number, string, string]>([
    [31, 'ms', '+31.0 ms'],
    [-4.2, 'tok/s', '−4.20 tok/s'],
    [0, 'ms', '0 ms'],
  ])('formatSigned(%s, %s) → %s', (value, unit, text) => {
    expect(formatSigned(value, unit)).toBe(text)
  })

  // At the precision of the values compared (three significant digits of the scale): noise-sized
  // differences read as zero instead of `−0.000671 ms`.
  it.each<[number, number, string]>([
    [-0.000671, 220.5, '0 ms'],
    [31.46, 220, '+31 ms'],
    [-31.46, 2901, '−30 ms'],
    [0.123, 5.2, '+0.12 ms'],
    [-0.004, 5.2, '0 ms'],
    [1234.5, 4203, '+1,230 ms'],
    [0.0512, 0.85, '+0.051 ms'],
  ])('formatSigned(%s, ms, scale %s) → %s', (value, scale, text) => {
    expect(formatSigned(value, 'ms', scale)).toBe(text)
  })

  it('pluralises', () => {
    expect([plural(1, 'cell'), plural(400, 'cell'), plural(1200, 'target')]).toEqual([
      '1 cell',
      '400 cells',
      '1,200 targets',
    ])
  })
})
