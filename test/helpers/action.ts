/**
 * Runs the bundled action (`node dist/index.js`, main and post step alike) as the runner does:
 * `INPUT_*` variables with dashes kept, and the file commands GITHUB_OUTPUT, GITHUB_STATE,
 * GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH in a fresh temp directory.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ResultsFile } from '../../src/core/results.js'
import { ROOT } from './root.js'

export { ROOT }

export interface ActionRun {
  code: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
  workdir: string
  /** Milliseconds from spawn to exit. */
  elapsedMs: number
}

export interface ActionOptions {
  inputs: Record<string, string>
  /** Working directory (the "checkout"); a fresh temp dir when absent. */
  cwd?: string
  event?: { name: string; payload: unknown; ref?: string; sha?: string }
  env?: Record<string, string>
  /** Called once the process is spawned (e.g. to send SIGINT later). */
  onSpawn?: (child: ChildProcess) => void
  /** Saved state to hand to the post step (`STATE_<name>`). */
  state?: Record<string, string>
  timeoutMs?: number
}

/**
 * Calls `act` once, the first time the child's stdout so far matches `pattern`: how the tests signal
 * a running action at a known point (`ready at` → mid-measurement).
 */
export function onceStdout(child: ChildProcess, pattern: RegExp, act: () => unknown): void {
  let out = ''
  let done = false
  child.stdout!.on('data', (d) => {
    out += d
    if (done || !pattern.test(out)) return
    done = true
    void act()
  })
}

/** Parses the `name<<delimiter` … `delimiter` blocks that @actions/core writes to file commands. */
export function parseFileCommand(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i])
    if (!m) continue
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i])
    out[m[1]] = value.join('\n')
  }
  return out
}

export async function runAction(options: ActionOptions): Promise<ActionRun> {
  const workdir = await mkdtemp(join(tmpdir(), 'lbg-action-'))
  const cwd = options.cwd ?? workdir
  const files = {
    output: join(workdir, 'output.txt'),
    state: join(workdir, 'state.txt'),
    summary: join(workdir, 'summary.md'),
    event: join(workdir, 'event.json'),
  }
  await Promise.all([files.output, files.state, files.summary].map((f) => writeFile(f, '')))
  const event = options.event ?? { name: 'workflow_dispatch', payload: {} }
  await writeFile(files.event, JSON.stringify(event.payload))

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? workdir,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_SHA: event.sha ?? '0123456789abcdef0123456789abcdef01234567',
    GITHUB_REF: event.ref ?? 'refs/heads/feature',
    GITHUB_RUN_ID: '4242',
    GITHUB_SERVER_URL: 'https://github.example',
    RUNNER_TEMP: workdir,
    ...options.env,
  }
  for (const [name, value] of Object.entries(options.inputs)) env[`INPUT_${name.toUpperCase()}`] = value
  for (const [name, value] of Object.entries(options.state ?? {})) env[`STATE_${name}`] = value

  const script = join(ROOT, 'dist/index.js')
  const started = Date.now()
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  options.onSpawn?.(child)
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)))
  clearTimeout(timer)
  const elapsedMs = Date.now() - started
  const [outputText, stateText, summary] = await Promise.all(
    [files.output, files.state, files.summary].map((f) => readFile(f, 'utf8')),
  )
  return {
    code,
    stdout,
    stderr,
    outputs: parseFileCommand(outputText),
    state: parseFileCommand(stateText),
    summary,
    workdir,
    elapsedMs,
  }
}

/** The `pull_request` event of PR #3 on `o/r`, default branch `main`. */
export const PR_EVENT = {
  name: 'pull_request',
  ref: 'refs/pull/3/merge',
  payload: { pull_request: { number: 3 }, repository: { default_branch: 'main', full_name: 'o/r' } },
}

/**
 * One action run on PR #3 in `cwd` writing to `out`: comparing with `baseline` (a results file) when given, else
 * only measuring (`mode: run`); returns the run with its results file, its report and the first cell.
 */
export async function runPrAction(o: {
  cwd: string
  config: string
  out: string
  baseline?: string
  env?: Record<string, string>
  inputs?: Record<string, string>
}) {
  const result = await runAction({
    cwd: o.cwd,
    inputs: {
      config: o.config,
      hardware: 'sim-hw',
      'results-dir': o.out,
      ...(o.baseline ? { 'baseline-file': o.baseline } : { mode: 'run' }),
      ...o.inputs,
    },
    env: o.env,
    event: PR_EVENT,
    timeoutMs: 120_000,
  })
  const results = JSON.parse(await readFile(join(o.cwd, o.out, 'results.json'), 'utf8')) as ResultsFile
  const report = await readFile(join(o.cwd, o.out, 'report.md'), 'utf8')
  return { ...result, results, report, cell: results.cells[0] }
}
