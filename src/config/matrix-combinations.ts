/** A target's `matrix:` as its combinations, like a GitHub job matrix. */
import type { Path, Problems } from './issues.js'

/** Same cap as a GitHub job matrix: past it a typo is likelier than intent. */
export const MAX_COMBINATIONS = 256

/** The cartesian product in key order, values as text; `[{}]` without a matrix. */
export function combinations(
  matrix: Record<string, readonly (string | number | boolean)[]>,
  path: Path,
  problems: Problems,
): Record<string, string>[] {
  const entries = Object.entries(matrix)
  for (const reserved of ['port', 'target']) {
    if (reserved in matrix) problems.add([...path, reserved], `{${reserved}} is set by the action, not the matrix`)
  }
  for (const [name, values] of entries) {
    const texts = values.map(String)
    texts.forEach((v, i) => texts.indexOf(v) !== i && problems.add([...path, name, i], `value "${v}" is listed twice`))
  }
  const total = entries.reduce((n, [, values]) => n * values.length, 1)
  if (total > MAX_COMBINATIONS) {
    problems.add(path, `expands to ${total} combinations (at most ${MAX_COMBINATIONS})`)
    return []
  }
  return entries.reduce<Record<string, string>[]>(
    (combos, [name, values]) => combos.flatMap((combo) => values.map((v) => ({ ...combo, [name]: String(v) }))),
    [{}],
  )
}

export function describe(combo: Record<string, string>): string {
  return Object.entries(combo)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')
}
