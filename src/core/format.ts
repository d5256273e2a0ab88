/** How numbers, durations and sizes read wherever we print them: reports, verdict reasons, log lines, the plan. */
import { SIZE_FACTORS } from './units.js'

/** A real minus sign reads better than a hyphen in tables. */
export const MINUS = '\u2212'
export const EMPTY = '—'

/** Precision that suits the magnitude: 12,345 · 523 · 52.3 · 5.23 · 0.0523. */
export function formatNumber(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return EMPTY
  const size = Math.abs(value)
  const text =
    size >= 1000
      ? Math.round(size).toLocaleString('en-US')
      : size >= 100
        ? size.toFixed(0)
        : size >= 10
          ? size.toFixed(1)
          : size >= 1
            ? size.toFixed(2)
            : size === 0
              ? '0'
              : size.toPrecision(3)
  return value < 0 ? MINUS + text : text
}

/** A fraction as a percentage without trailing zeros: 0.05 → `5%`, 0.123 → `12.3%`. */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return EMPTY
  const text = (fraction * 100).toFixed(1).replace(/\.0$/, '')
  return `${text.replace('-', MINUS)}%`
}

/** A fraction as percentage points with at most one decimal, no sign or unit: 0.83 → `83`, 0.125 → `12.5`. */
export function formatPoints(fraction: number): string {
  return String(Math.round(fraction * 1000) / 10)
}

/** A signed change of a share in percentage points: 0.94 − 1 → `−6 points`, `+0.5 pt` with `unit: 'pt'`, `0 points`. */
export function formatPointsDelta(diff: number, unit = 'points'): string {
  const size = formatPoints(Math.abs(diff))
  const sign = size === '0' ? '' : diff < 0 ? MINUS : '+'
  return `${sign}${size} ${unit}`
}

/** A signed relative change with one decimal: `+4.0%`, `−12.3%`, `0.0%`. */
export function formatDelta(fraction: number | null | undefined): string {
  if (typeof fraction !== 'number' || !Number.isFinite(fraction)) return EMPTY
  const text = Math.abs(fraction * 100).toFixed(1)
  if (Number(text) === 0) return '0.0%'
  return `${fraction < 0 ? MINUS : '+'}${text}%`
}

/**
 * A signed absolute change with its unit: `+31 ms`, `−4.20 tok/s`. With `scale` (the size of the values
 * compared) the change is rounded to the precision those values are shown at, three significant digits of
 * `scale`: a 0.000671 ms change between two TTFTs of 220 ms reads `0 ms`, not `−0.000671 ms`.
 */
export function formatSigned(value: number, unit: string, scale?: number): string {
  const text =
    scale === undefined || !(Math.abs(scale) > 0) || !Number.isFinite(scale)
      ? formatNumber(Math.abs(value))
      : atPrecisionOf(Math.abs(value), Math.abs(scale))
  const sign = /^[0.,]+$/.test(text) ? '' : value < 0 ? MINUS : '+'
  return `${sign}${/^[0.,]+$/.test(text) ? '0' : text} ${unit}`
}

function atPrecisionOf(size: number, scale: number): string {
  const exponent = Math.floor(Math.log10(scale)) - 2
  const decimals = Math.max(0, -exponent)
  const quantum = 10 ** exponent
  const rounded = Math.round(size / quantum) * quantum
  return rounded >= 1000 ? Math.round(rounded).toLocaleString('en-US') : rounded.toFixed(decimals)
}

/** Counts with a noun: `1 cell`, `400 cells`. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : many}`
}

/** Keeps at most two decimals and drops trailing zeros. */
function round2(value: number): number {
  return Math.round(value * 100) / 100
}

/** `500ms`, `1.5s`, `45s`, `1m30s`, `20m`, `1h5m`: the inverse of the matrix file's duration syntax. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return EMPTY
  // Below a second, whole milliseconds: `497ms`, not `497.43ms`.
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${round2(ms / 1000)}s`
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = round2((ms % 60_000) / 1000)
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`
}

const BINARY_UNITS = ['TiB', 'GiB', 'MiB', 'KiB'] as const

/** `4GiB`, `1.5GiB`, `512MiB`, `100B`: binary units, as the matrix file writes memory sizes. */
export function formatBytes(bytes: number): string {
  for (const unit of BINARY_UNITS) {
    const factor = SIZE_FACTORS[unit]
    if (bytes >= factor) return `${round2(bytes / factor)}${unit}`
  }
  return `${bytes}B`
}
