// Every key of the matrix file is documented in docs/matrix-file.md. The keys come from the zod schema
// the action validates with (and the engine registry's options), never from a list kept here, so a key
// added to the schema fails this test until the reference documents it.
//
// "Documented" means: under the heading that holds the key's block (up to the next heading of any
// level), a table row whose first cell is exactly the key in backticks (| `rounds` | … |) and whose last
// cell, the effect, is not empty. A row in such a table naming no key of its block fails too.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { buildMatrixSchema } from '../src/config/schema.js'
import { DEFAULT_SETTINGS, SETTING_KEYS } from '../src/config/settings-schema.js'
import { CORE_TARGET_KEYS } from '../src/config/target-schema.js'
import { ENGINES } from '../src/engines/registry.js'

const DOC_PATH = 'docs/matrix-file.md'
const DOC = readFileSync(new URL(`../${DOC_PATH}`, import.meta.url), 'utf8')

/** The zod 4 definition fields the unwrapping below reads. */
interface Def {
  type: string
  innerType?: z.ZodType
  in?: z.ZodType
  options?: readonly z.ZodType[]
  valueType?: z.ZodType
  shape?: Record<string, z.ZodType>
}
const def = (schema: z.ZodType) => schema.def as unknown as Def

/** The one object schema inside optional, default, prefault, nullable, pipe (transform) and union wrappers. */
function objectShape(schema: z.ZodType, at: string): Record<string, z.ZodType> {
  const d = def(schema)
  if (d.type === 'object') return d.shape!
  if (d.innerType) return objectShape(d.innerType, at)
  if (d.type === 'pipe') return objectShape(d.in!, at)
  if (d.type === 'union') {
    const objects = d.options!.filter((o) => unwrapsToObject(o))
    if (objects.length !== 1) throw new Error(`${at}: a union of ${objects.length} objects`)
    return objectShape(objects[0], at)
  }
  throw new Error(`${at}: no object inside a ${d.type}`)
}

function unwrapsToObject(schema: z.ZodType): boolean {
  try {
    objectShape(schema, '')
    return true
  } catch {
    return false
  }
}

/** The value schema of a record (`scenarios:` and `targets:` map names to entries). */
function entryOf(schema: z.ZodType, at: string): z.ZodType {
  const d = def(schema)
  if (d.type === 'record') return d.valueType!
  if (d.innerType) return entryOf(d.innerType, at)
  throw new Error(`${at}: not a record but a ${d.type}`)
}

const top = buildMatrixSchema().shape as unknown as Record<string, z.ZodType>
const settings = objectShape(top.defaults, 'defaults')
const target = objectShape(entryOf(top.targets, 'targets'), 'targets.*')
const gate = objectShape(top.gate, 'gate')
const options = [...new Set(ENGINES.flatMap((e) => Object.keys(e.options ?? {})))]
const optionEngines = (key: string) => ENGINES.filter((e) => e.options && key in e.options).map((e) => e.name)
const metrics = Object.keys(gate).filter((k) => k !== 'quality')

/** Each block of the file: its keys as the schema has them, and the heading of docs/matrix-file.md that documents them. */
const GROUPS: { name: string; heading: string; keys: string[]; known: string[] }[] = [
  { name: 'top-level keys', heading: 'Top-level keys', keys: Object.keys(top), known: ['version', 'targets'] },
  {
    name: 'settings (defaults and targets)',
    heading: 'Settings',
    keys: Object.keys(settings),
    known: ['rounds', 'request-body', 'max-rounds'],
  },
  {
    name: 'quality probe keys',
    heading: 'The quality probe',
    keys: Object.keys(objectShape(settings.quality, 'defaults.quality')),
    known: ['questions', 'max-tokens'],
  },
  {
    name: 'scenario keys',
    heading: 'Scenarios',
    keys: Object.keys(objectShape(entryOf(top.scenarios, 'scenarios'), 'scenarios.*')),
    known: ['input-tokens', 'rate'],
  },
  {
    name: 'slo keys',
    heading: 'slo',
    keys: Object.keys(objectShape(objectShape(entryOf(top.scenarios, 'scenarios'), 'scenarios.*').slo, 'slo')),
    known: ['ttft', 'tpot', 'e2e'],
  },
  {
    name: 'target keys',
    heading: 'Targets',
    // A target also takes every setting and its engine's options: those are documented in their own tables.
    keys: Object.keys(target).filter((k) => !(SETTING_KEYS as string[]).includes(k) && !options.includes(k)),
    known: ['launch', 'container', 'paths'],
  },
  { name: 'engine options', heading: 'Engine options', keys: options, known: ['profile', 'run', 'format'] },
  {
    name: 'gate keys',
    heading: 'Gate',
    keys: Object.keys(gate),
    known: ['decode', 'ttft', 'failed-requests', 'quality'],
  },
  {
    name: 'metric limit keys',
    heading: 'Metric limits',
    keys: [...new Set(metrics.flatMap((m) => Object.keys(objectShape(gate[m], `gate.${m}`))))],
    known: ['max-regression', 'min-delta', 'stat', 'max'],
  },
  {
    name: 'quality gate keys',
    heading: 'Quality gate',
    keys: Object.keys(objectShape(gate.quality, 'gate.quality')),
    known: ['max-accuracy-drop', 'min-agreement'],
  },
  {
    name: 'container keys',
    heading: 'Container',
    keys: Object.keys(objectShape(target.container, 'targets.*.container')),
    known: ['image', 'run-args'],
  },
]

/** The table rows under a heading, up to the next heading, as cells. */
function sectionRows(heading: string): string[][] {
  const lines = DOC.split('\n')
  const start = lines.findIndex(
    (l) =>
      /^#{1,6}\s/.test(l) &&
      l
        .replace(/^#+\s+/, '')
        .replace(/`/g, '')
        .trim() === heading,
  )
  if (start < 0) return []
  const end = lines.findIndex((l, i) => i > start && /^#{1,6}\s/.test(l))
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((l) => l.trim().startsWith('|') && !/^\|\s*:?-/.test(l.trim()))
    .map((l) =>
      l
        .trim()
        .replace(/^\||\|$/g, '')
        .split(' | ')
        .map((c) => c.trim()),
    )
}

/** The key a row documents: its first cell when that is exactly one `key`. */
const rowKey = (row: string[]) => /^`([^`]+)`$/.exec(row[0])?.[1]

describe(`${DOC_PATH} documents every key of the matrix file`, () => {
  it.each(GROUPS.map((g) => [g.name, g] as const))('the %s come from the schema', (_name, group) => {
    // Guards the checks below: an unwrapping that found nothing would document nothing.
    expect(group.keys.length).toBeGreaterThan(0)
    expect(group.keys).toEqual(expect.arrayContaining(group.known))
  })

  it('the lists agree with the keys src/config exports', () => {
    expect(Object.keys(settings).sort()).toEqual([...SETTING_KEYS].sort())
    expect(Object.keys(target)).toEqual(expect.arrayContaining([...CORE_TARGET_KEYS, ...SETTING_KEYS, ...options]))
  })

  it.each(GROUPS.flatMap((g) => g.keys.map((key) => [key, g.name, g] as const)))('`%s` (%s)', (key, _name, group) => {
    const row = sectionRows(group.heading).find((r) => rowKey(r) === key)
    expect(row, `${DOC_PATH}: no row | \`${key}\` | … | under the heading "${group.heading}"`).toBeDefined()
    expect(row!.at(-1), `${DOC_PATH}: the row of \`${key}\` says nothing about its effect`).not.toBe('')
  })

  it.each(GROUPS.map((g) => [g.heading, g] as const))(
    'the table under "%s" lists no key the schema lacks',
    (_heading, group) => {
      const rows = sectionRows(group.heading)
      expect(rows.length, `${DOC_PATH}: no table under "${group.heading}"`).toBeGreaterThan(1)
      const keyed = rows.slice(1).map((r) => rowKey(r) ?? r[0])
      expect(keyed.filter((k) => !group.keys.includes(k))).toEqual([])
    },
  )

  it('names the built-in value of every setting that has a plain one', () => {
    const rows = sectionRows('Settings')
    const plain = Object.entries(DEFAULT_SETTINGS).filter(
      ([, v]) => ['string', 'number', 'boolean'].includes(typeof v) || (Array.isArray(v) && v.length === 0),
    )
    expect(plain.length).toBeGreaterThan(5)
    for (const [key, value] of plain) {
      expect(rows.find((r) => rowKey(r) === key)?.[1], `${DOC_PATH}: default of \`${key}\``).toBe(
        `\`${Array.isArray(value) ? '[]' : String(value)}\``,
      )
    }
  })

  it('names the engines that take each engine option', () => {
    const rows = sectionRows('Engine options')
    for (const key of options) {
      const engines = [...(rows.find((r) => rowKey(r) === key)?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])
      expect(engines, `${DOC_PATH}: engines of \`${key}\``).toEqual(optionEngines(key))
    }
  })
})
