/**
 * Setup file of the fast project (vitest.config.ts): a fast test starts no process. Every entry point of
 * node:child_process is replaced by one that throws, and records the call; the test that made it (or its file, when a
 * hook made it) then fails naming the program, even where the code under test caught the throw. A test that needs a
 * process belongs in the slow project: name its file `*.slow.test.ts` (test/projects.ts).
 *
 * Named imports of a built-in module see the replacement once `syncBuiltinESMExports` has run
 * (https://nodejs.org/api/module.html#modulesyncbuiltinesmexports); a setup file runs before the test file's imports.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { promisify } from 'node:util'
import { afterAll, afterEach, expect } from 'vitest'

export const ENTRY_POINTS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const

const started: string[] = []

export function refusal(entry: string, program: unknown): string {
  return (
    `fast project: ${entry}(${JSON.stringify(String(program))}) starts a process; ` +
    'a test that starts one belongs in the slow project (name its file *.slow.test.ts)'
  )
}

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>
for (const entry of ENTRY_POINTS) {
  const refuse = (program: unknown): Error => {
    const message = refusal(entry, program)
    started.push(message)
    return new Error(message)
  }
  const replacement = (program: unknown) => {
    throw refuse(program)
  }
  // util.promisify(execFile) and promisify(exec) take the custom form; it must refuse too.
  Object.defineProperty(replacement, promisify.custom, { value: (program: unknown) => Promise.reject(refuse(program)) })
  childProcess[entry] = replacement
}
syncBuiltinESMExports()

/** The refusals recorded since the last check, cleared: for the test of this file. */
export function takeRefusals(): string[] {
  return started.splice(0)
}

function failOnStarted(): void {
  const seen = takeRefusals()
  expect(seen, seen.join('\n')).toEqual([])
}
afterEach(failOnStarted)
afterAll(failOnStarted)
