/**
 * `engines.node` in package.json is true: every package package-lock.json installs declares support for every Node
 * version the range admits, so `npm ci` on any of them prints no EBADENGINE warning (npm warns for each installed
 * package whose own `engines.node` the running Node does not satisfy: https://docs.npmjs.com/cli/v11/configuring-npm/package-json#engines).
 * The range is checked at both ends of each of its sets: `^20.19.0` at 20.19.0 and at the last 20.x, `>=24` at
 * 24.0.0 and at a far later version. The ranges are read with the subset of node-semver's grammar the lock file uses
 * (https://github.com/npm/node-semver#ranges); one outside it fails the test rather than being skipped.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/root.js'

type Version = [number, number, number]

const LAST = 999

function version(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number)
  return [major, minor, patch]
}

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

/** One comparator of a range: `>=20.19.0`, `^20.19.0`, `~1.2`, `<25`, a bare `20` or `20.1`, `*`. */
function admits(v: Version, comparator: string): boolean {
  if (comparator === '*' || comparator === 'x') return true
  const m = /^(>=|<=|>|<|\^|~|=)?v?(\d+(?:\.\d+){0,2})(?:\.x)?$/.exec(comparator)
  if (!m) throw new Error(`a range this test cannot read: ${comparator}`)
  const op = m[1] ?? '='
  const at = version(m[2])
  const given = m[2].split('.').length
  const order = compare(v, at)
  if (op === '>=') return order >= 0
  if (op === '>') return order > 0
  if (op === '<=') return order <= 0
  if (op === '<') return order < 0
  if (op === '^') return order >= 0 && v[0] === at[0]
  if (op === '~') return order >= 0 && v[0] === at[0] && (given < 2 || v[1] === at[1])
  // A bare or `=` version: those parts of it that are given must match.
  return at.slice(0, given).every((n, i) => v[i] === n)
}

/** node-semver's `satisfies` for the ranges the lock file holds: sets joined by `||`, comparators by spaces. */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => admits(v, comparator)),
  )
}

/** The versions at both ends of each set of our own range. */
function ends(range: string): string[] {
  return range.split('||').flatMap((set) => {
    const m = /^\s*(\^|>=)(\d+(?:\.\d+){0,2})\s*$/.exec(set)
    if (!m) throw new Error(`engines.node: write each set as ^X.Y.Z or >=X.Y.Z, not '${set.trim()}'`)
    const from = version(m[2])
    const to: Version = m[1] === '^' ? [from[0], LAST, LAST] : [LAST, 0, 0]
    return [from, to].map((v) => v.join('.'))
  })
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>
}

describe('engines.node', () => {
  it('reads ranges as node-semver does', () => {
    const cases: [string, string, boolean][] = [
      ['20.19.0', '>=20.19', true],
      ['20.18.9', '>= 20.19.0', false],
      ['22.12.0', '^20.19.0 || ^22.13.0 || >=24', false],
      ['22.13.0', '^20.19.0 || ^22.13.0 || >=24', true],
      ['26.0.0', '^20 || ^22 || ^24', false],
      ['20.999.999', '20 || >=22', true],
      ['21.0.0', '20 || >=22', false],
      ['20.0.0', '>=0.3.0 <1', false],
      ['18.0.0', '*', true],
    ]
    expect(cases.map(([v, range]) => satisfies(version(v), range))).toEqual(cases.map((c) => c[2]))
    expect(ends('^20.19.0 || >=24')).toEqual(['20.19.0', '20.999.999', '24.0.0', '999.0.0'])
  })

  it('is supported by every package the lock file installs, at both ends of each of its sets', () => {
    const points = ends(pkg.engines.node)
    const refusals = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      // The root entry is this package; an optional one (a platform's binary) is skipped where it does not fit.
      if (!path || !range || entry.optional) return []
      return points
        .filter((point) => !satisfies(version(point), range))
        .map((point) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}: not ${point}`)
    })
    expect(refusals).toEqual([])
    // Guards the check: a lock file read as empty would prove nothing.
    expect(Object.keys(lock.packages).length).toBeGreaterThan(300)
  })
})
