/**
 * A box for same-box A/B runs through the bundle: the simulator with a 25 ms decode step (40 tok/s per stream at
 * `time-scale: 1`), the box's speed shared by both arms (`LLM_BENCH_GATE_SIM_BOX_FACTOR`), the scripted nvidia-smi
 * naming the driver, and a git origin whose base and head commits hold the matrix file (git-origin.ts).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ResultsFile } from '../../src/core/results.js'
import { profileJson } from '../sim/profile-file.js'
import { ROOT, runAction, type ActionRun } from './action.js'
import { CLI } from './cli.js'
import { fullClone, makeOrigin, prEvent, shallowClone, type OriginFiles } from './git-origin.js'

export interface GitWorkspace {
  /** The head commit's checkout: the action's working directory. */
  checkout: string
  base: string
}

/** A PR's checkout as `actions/checkout` leaves it (depth 1: the base commit is not in it), or a full clone. */
export function gitWorkspace(files: OriginFiles, depth: 'shallow' | 'full' = 'shallow'): GitWorkspace {
  const origin = makeOrigin('lbg-ab-', files)
  return { checkout: depth === 'full' ? fullClone(origin) : shallowClone(origin), base: origin.base }
}

const SMI_DIR = join(ROOT, 'test/helpers/nvidia-smi')
/** A decode step of 25 ms at any batch size: 40 tok/s per stream at time-scale 1. */
export const PROFILE = profileJson('box', { prefill: { 'tokens-per-s': 20000 }, decode: { 'step-ms': 25 } })

/**
 * A matrix file of `targets` simulator targets (`sim-a`, `sim-b`, …), each at its time scale, one scenario. No
 * re-measurement to confirm (`confirm: 0`): the A/B is the subject, and the stored verdicts that ask for one are
 * losses past twice the 5 % limit, regressions whatever the noise, or passes.
 */
export function abMatrix(timeScales: readonly number[], defaults = ''): string {
  return [
    'version: 1',
    'hardware: box',
    `defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 30s, quality: false${defaults} }`,
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  short: { input-tokens: 32, output-tokens: 24, concurrency: 2 }',
    'targets:',
    ...timeScales.flatMap((scale, i) => [
      `  sim-${'abcd'[i]}:`,
      '    engine: sim',
      '    profile: profiles/box.json',
      `    time-scale: ${scale}`,
    ]),
    '',
  ].join('\n')
}

/** The environment of a run on this box: its speed and its driver. */
export function box(factor: number, driver: string): Record<string, string> {
  return {
    PATH: `${SMI_DIR}:${process.env.PATH}`,
    FAKE_SMI_DRIVER: driver,
    LLM_BENCH_GATE_SIM_BOX_FACTOR: String(factor),
  }
}

/** The stored baseline: `matrix` measured by the CLI at box factor 1 under driver 580.95; its results file. */
export async function storedBaseline(matrix: string): Promise<string> {
  const ws = gitWorkspace({ base: { 'bench.yml': matrix, 'profiles/box.json': PROFILE }, head: {} }, 'full')
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'run', '--config', 'bench.yml', '--out', 'stored'], {
      cwd: ws.checkout,
      env: { ...process.env, ...box(1, '580.95.05') },
      stdio: 'ignore',
    })
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`baseline run exited ${code}`))))
  })
  return join(ws.checkout, 'stored', 'results.json')
}

export interface PrRun extends ActionRun {
  results: ResultsFile
  report: string
  comment: string
}

/** The action on the PR's pull_request event in the checkout, its results under `inputs['results-dir']`. */
export async function prRun(
  ws: GitWorkspace,
  inputs: Record<string, string>,
  env: Record<string, string>,
  resultsFile = 'results.json',
): Promise<PrRun> {
  const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
  const run = await runAction({
    cwd: ws.checkout,
    inputs: { config: 'bench.yml', ...inputs },
    env: { ...env, RUNNER_TEMP: runnerTemp },
    event: prEvent(ws.base),
    timeoutMs: 240_000,
  })
  const dir = join(ws.checkout, inputs['results-dir'])
  const read = (name: string) => readFile(join(dir, name), 'utf8')
  const results = JSON.parse(await read(resultsFile)) as ResultsFile
  return { ...run, results, report: await read('report.md'), comment: await read('comment.md') }
}
