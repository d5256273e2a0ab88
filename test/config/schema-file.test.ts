// The published JSON Schema is generated from the zod schema and must not go stale.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { renderSchema, SCHEMA_FILE } from '../../scripts/schema.js'
import { loadPlan } from '../../src/config/index.js'
import { z } from 'zod'
import { matrixJsonSchema, SCHEMA_ID } from '../../src/config/schema.js'
import { CORE_TARGET_KEYS, optionOwners } from '../../src/config/target-schema.js'
import { ENGINE_NAMES, ENGINES } from '../../src/engines/registry.js'
import { check } from './json-schema-check.js'
import { TEST_ENGINES } from './engines.js'

const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url))
/** The registry's adapters, with a sim launch that needs no bundle: this file is about the config. */
const REGISTRY_NO_BUNDLE = ENGINES.map((e) =>
  e.name === 'sim' ? { ...e, defaultLaunch: () => 'sim --port {port}' } : e,
)
const committed = () => JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, any>

describe('schema/llm-bench.schema.json', () => {
  it('equals a fresh generation (run `npx tsx scripts/schema.ts` after changing the schema or an engine option)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(renderSchema())
  })

  it('carries its id and title, and the engine enum from the registry', () => {
    const schema = committed()
    expect(schema.$id).toBe(SCHEMA_ID)
    expect(schema.title).toBe('llm-bench-gate matrix file')
    expect(schema.properties.targets.additionalProperties.properties.engine.enum).toEqual(ENGINE_NAMES)
  })

  it.each(['demo-like.yml', 'spec-example.yml'])('accepts %s, which also loads as a plan', async (name) => {
    const document = parse(readFileSync(fixture(name), 'utf8'))
    expect(check(committed(), document)).toEqual([])
    await expect(loadPlan(fixture(name), { engines: REGISTRY_NO_BUNDLE })).resolves.toMatchObject({
      resolvedPath: fixture(name),
    })
  })

  it("parses the sim adapter's declared keys into engineOptions (load-time in ms)", async () => {
    const plan = await loadPlan(fixture('demo-like.yml'), { engines: REGISTRY_NO_BUNDLE })
    const sims = plan.targets.filter((t) => t.sourceKey === 'sim-qwen38-27b-{quant}')
    expect(sims.map((t) => [t.id, t.engineOptions])).toEqual([
      ['sim-qwen38-27b-nvfp4', { profile: 'vllm-qwen38-27b-nvfp4', 'time-scale': 0.05, seed: 7, 'load-time': 500 }],
      [
        'sim-qwen38-27b-nvfp4-mtp3',
        { profile: 'vllm-qwen38-27b-nvfp4-mtp3', 'time-scale': 0.05, seed: 7, 'load-time': 500 },
      ],
    ])
  })

  it.each([
    ['an unknown top-level key', (d: any) => (d.extra = 1), '$.extra: not allowed'],
    [
      'a malformed duration',
      (d: any) => (d.defaults['ready-timeout'] = '20 minutes'),
      '$.defaults.ready-timeout: does not match pattern',
    ],
    ['an unknown engine', (d: any) => (d.targets.shared.engine = 'vlm'), '$.targets.shared.engine: not in enum'],
    ['a missing version', (d: any) => delete d.version, '$.version: required'],
    [
      'a malformed memory floor',
      (d: any) => (d.defaults['memory-floor'] = '4 gigs'),
      '$.defaults.memory-floor: does not match pattern',
    ],
  ])('rejects %s the way an editor would', (_name, edit, error) => {
    const document = parse(readFileSync(fixture('demo-like.yml'), 'utf8'))
    edit(document)
    expect(check(committed(), document)).toContain(error)
  })

  it('lists engine-specific keys once an adapter declares them', () => {
    const target = (matrixJsonSchema(TEST_ENGINES) as any).properties.targets.additionalProperties
    expect(target.properties.profile.description).toBe('Engine option (sim)')
    expect(target.properties.slots.description).toBe('Engine option (llamacpp)')
    const document = {
      version: 1,
      scenarios: { s: { 'input-tokens': 1, 'output-tokens': 2 } },
      targets: { t: { engine: 'sim', profile: 'spark' } },
    }
    expect(check(matrixJsonSchema(TEST_ENGINES), document)).toEqual([])
  })
})

describe('engine option keys', () => {
  it.each(['paths', 'launch', 'rounds'])(
    'refuses an engine option that collides with the matrix-file key %s',
    (key) => {
      const engine = { ...ENGINES[0], name: 'clash', options: { [key]: z.string() } }
      expect(() => optionOwners([engine])).toThrow(`engine clash: option key "${key}" collides with a matrix-file key`)
    },
  )

  it('takes the core target keys from the schema itself', () => {
    expect(CORE_TARGET_KEYS).toEqual(expect.arrayContaining(['engine', 'launch', 'container', 'gate', 'paths']))
  })
})
