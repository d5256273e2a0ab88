/**
 * The run's pipeline called in this process, as `run` would on a manual dispatch of the default branch (hardware key
 * `cpu`), in the test's working folder: for tests that read the results file and the report the pipeline returns.
 */
import { readFile } from 'node:fs/promises'
import { DEFAULTS, type ActionOptions } from '../../src/config/inputs.js'
import type { ResultsFile } from '../../src/core/results.js'
import { runPipeline } from '../../src/run/pipeline.js'
import { memoryLogger } from './memory-logger.js'

export const CONTEXT = { event: 'workflow_dispatch', sha: 'f00d', ref: 'refs/heads/main', runUrl: '' }

/** A pipeline runner over the folder `cwd()` names when called (set in a `beforeAll`), `mode: run` unless told. */
export function inProcessPipeline(cwd: () => string, base: Partial<ActionOptions> = {}) {
  return (options: Partial<ActionOptions>) =>
    runPipeline({
      options: { ...DEFAULTS, mode: 'run', ...base, ...options } as ActionOptions,
      context: CONTEXT,
      log: memoryLogger(),
      toolVersion: 'test',
      cwd: cwd(),
      detectHardware: async () => 'cpu',
    })
}

export const readResultsFile = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as ResultsFile
