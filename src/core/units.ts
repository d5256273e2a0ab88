/**
 * Durations, sizes and percents as written in the matrix file. Parsers return undefined for
 * malformed text so the schema can word the error with the field's path.
 */

const NUM = String.raw`(\d+(?:\.\d+)?)`
// Units in descending order, each at most once: `1h30m`, `90s`, `500ms`. `m(?!s)` keeps `5ms` from reading as 5 minutes.
export const DURATION_PATTERN = `^(?:${NUM}h)?(?:${NUM}m(?!s))?(?:${NUM}s)?(?:${NUM}ms)?$`
const DURATION_RE = new RegExp(DURATION_PATTERN)
const DURATION_FACTORS = [3_600_000, 60_000, 1000, 1]

/** Milliseconds, or undefined when the text is not a duration like `500ms`, `90s`, `20m`, `1h30m`. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim()
  const match = DURATION_RE.exec(trimmed)
  if (!trimmed || !match) return undefined
  return DURATION_FACTORS.reduce((total, factor, i) => total + (match[i + 1] ? Number(match[i + 1]) * factor : 0), 0)
}

export const SIZE_FACTORS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
}
const SIZE = `${NUM}\\s*(${Object.keys(SIZE_FACTORS).join('|')})`
const SIZE_RE = new RegExp(`^${SIZE}$`)

/** Bytes, or undefined when the text is not a size like `4GiB`, `512MiB`, `4GB`. */
export function parseSize(text: string): number | undefined {
  const match = SIZE_RE.exec(text.trim())
  return match ? Math.round(Number(match[1]) * SIZE_FACTORS[match[2]]) : undefined
}

const PERCENT = `${NUM}\\s*%`
const PERCENT_RE = new RegExp(`^${PERCENT}$`)

/** For the JSON Schema, so editors flag a malformed value as it is typed. */
export const PERCENT_PATTERN = `^${PERCENT}$`
export const SIZE_OR_PERCENT_PATTERN = `^(?:${SIZE}|${PERCENT})$`

/** A fraction (`5%` → 0.05), or undefined when the text is not a percent. */
export function parsePercent(text: string): number | undefined {
  const match = PERCENT_RE.exec(text.trim())
  return match ? Number(match[1]) / 100 : undefined
}
