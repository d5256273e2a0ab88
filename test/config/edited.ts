/**
 * The base config (write.ts) with one edit, as a plan or as the problems loading it reports: what a test of one
 * matrix key asks of each value it tries.
 */
import { afterAll } from 'vitest'
import { buildPlan, loadPlan } from '../../src/config/index.js'
import { ConfigError } from '../../src/core/errors.js'
import type { Plan } from '../../src/core/plan.js'
import { TEST_ENGINES } from './engines.js'
import { baseConfig, tempDir, type TempDir } from './write.js'

export type Config = ReturnType<typeof baseConfig>
export type Edit = (c: Config) => void

/** The two readers over one temp dir, removed after the file's tests. */
export function editedConfigs(): { plan(edit: Edit): Plan; problemsOf(edit: Edit): Promise<string[]> } {
  const dir = tempDir()
  afterAll(() => dir.remove())
  return {
    plan(edit) {
      const config = baseConfig()
      edit(config)
      return buildPlan(config, { configPath: 'test.yml', resolvedPath: '/tmp/test.yml', engines: TEST_ENGINES })
    },
    /** The problems of the edited file, loaded from disk as `validate` loads it; a plan instead fails the test. */
    async problemsOf(edit) {
      const config = baseConfig()
      edit(config)
      return problemsOfFile(dir, dir.write(`case-${Math.random().toString(36).slice(2)}.yml`, config))
    },
  }
}

/** The problems loading `file` of `dir` reports, as `validate` loads it; a plan instead fails the test. */
export async function problemsOfFile(dir: TempDir, file: string): Promise<string[]> {
  try {
    await loadPlan(file, { cwd: dir.path, engines: TEST_ENGINES })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError, got a plan')
}
