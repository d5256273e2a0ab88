// Units as written in the matrix file.
import { describe, expect, it } from 'vitest'
import { formatBytes, formatDuration, formatPercent } from '../../src/core/format.js'
import { parseDuration, parsePercent, parseSize } from '../../src/core/units.js'

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['1.5s', 1500],
    ['20m', 1_200_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['2h0m5s250ms', 7_205_250],
    [' 4s ', 4000],
    ['0s', 0], // well-formed; the schema rejects it as non-positive
  ])('%s = %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each(['', '20', '20 minutes', '30m1h', '1h1h', 'm', '5 s', '-5s', '1d', '5M', '.5s'])(
    '%j is malformed',
    (text) => {
      expect(parseDuration(text)).toBeUndefined()
    },
  )

  it.each([
    [500, '500ms'],
    [4000, '4s'],
    [1500, '1.5s'],
    [1_200_000, '20m'],
    [5_400_000, '1h30m'],
    [90_000, '1m30s'],
  ])('%i ms prints as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
    expect(parseDuration(text)).toBe(ms)
  })
})

describe('sizes', () => {
  it.each([
    ['4GiB', 4 * 2 ** 30],
    ['512MiB', 512 * 2 ** 20],
    ['4GB', 4e9],
    ['1.5 GiB', 1.5 * 2 ** 30],
    ['64KiB', 65_536],
    ['1TB', 1e12],
    ['100B', 100],
  ])('%s = %i bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes)
  })

  it.each(['4', '4 gigs', '4gib', 'GiB', '-1GiB', '4G'])('%j is malformed', (text) => {
    expect(parseSize(text)).toBeUndefined()
  })

  it.each([
    [4 * 2 ** 30, '4GiB'],
    [512 * 2 ** 20, '512MiB'],
    [100, '100B'],
  ])('%i bytes print as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })
})

describe('percents', () => {
  it.each([
    ['5%', 0.05],
    ['12.5%', 0.125],
    ['150%', 1.5],
    ['0%', 0],
  ])('%s = %d', (text, fraction) => {
    expect(parsePercent(text)).toBeCloseTo(fraction, 12)
  })

  it.each(['5', 'five%', '%', '-5%', '5%%'])('%j is malformed', (text) => {
    expect(parsePercent(text)).toBeUndefined()
  })

  it('prints fractions as percents', () => {
    expect(formatPercent(0.05)).toBe('5%')
    expect(formatPercent(0.125)).toBe('12.5%')
  })
})
