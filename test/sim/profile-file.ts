/** Simulator profile files with round numbers (1,000 prefill tok/s, 20 ms decode steps), so schedules are easy to derive. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** A profile's JSON text: the round numbers above, `extra` over them. */
export function profileJson(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name,
    model: `test/${name}`,
    source: 'test',
    prefill: { 'tokens-per-s': 1000 },
    decode: { 'step-ms': 20 },
    ...extra,
  })
}

/** A writer of profile files into a temp dir that is removed after the test file. */
export function profileFiles(prefix: string): (name: string, extra?: Record<string, unknown>) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return (name, extra = {}) => {
    const path = join(dir, `${name}.json`)
    writeFileSync(path, profileJson(name, extra))
    return path
  }
}
