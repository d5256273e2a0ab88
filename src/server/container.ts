/**
 * `container:` targets: the `run` command the action composes, the runtime it picks, and the
 * stop, removal and label cleanup that reach the container itself. The `run` client runs in the
 * foreground as the launch's process group, but the container's processes are children of the
 * runtime's shim (`conmon`, `containerd-shim`) in a session of their own: killing the group never
 * reaches them, so every path that ends a container goes through the runtime, by name or by label.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { ContainerPlan } from '../core/plan.js'
import { formatDuration } from '../core/format.js'
import { redactLine } from '../core/redact.js'
import { shellQuote } from '../core/shell.js'

export type Runtime = 'docker' | 'podman'

/** The label every container of a run carries; its value is the run id. */
export const RUN_LABEL = 'llm-bench-gate.run'
const DETECT_TIMEOUT_MS = 3000
const COMMAND_TIMEOUT_MS = 30_000

/** Container names and label values take `[A-Za-z0-9_.-]`; anything else becomes `-`. */
export function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
}

/** A run id unique per run: the workflow run and attempt when there is one, plus random hex so two runs of one job differ. */
export function makeRunId(env: NodeJS.ProcessEnv = process.env): string {
  const run = env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? '1'}` : 'local'
  return sanitize(`${run}-${randomBytes(4).toString('hex')}`)
}

export function containerName(runId: string, targetId: string): string {
  return sanitize(`llm-bench-${runId}-${targetId}`)
}

/** A list is passed word for word; a string is split by the shell like a launch command. */
function shellWords(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  return typeof value === 'string' ? [value] : value.map(shellQuote)
}

/**
 * The `run` command as a `bash -c` line (exec, so the group leader is the client itself). The target's
 * `pass-env` names go in as `-e NAME` without a value: docker and podman then take the value from their own
 * environment (docs.docker.com, `docker run --env`: "If the variable isn't set in the local environment, the
 * variable won't be set in the container"), so a passed secret reaches the container without appearing in the
 * command line or the log.
 */
export function runCommand(
  runtime: Runtime,
  c: ContainerPlan,
  at: { runId: string; name: string; port: number; passEnv?: readonly string[] },
): string {
  // `--pull=never`: a missing image is pulled before the launch (`pullImage`), so the run never pulls inside startup.
  const label = `${RUN_LABEL}=${at.runId}`
  const fixed = ['run', '--init', '--network', 'host', '--name', at.name, '--label', label, '--pull=never']
  if (c.gpus === 'all') fixed.push(...(runtime === 'podman' ? ['--device', 'nvidia.com/gpu=all'] : ['--gpus', 'all']))
  if (c.shmSize) fixed.push('--shm-size', c.shmSize)
  for (const [name, value] of Object.entries({ PORT: String(at.port), ...c.env })) fixed.push('-e', `${name}=${value}`)
  for (const name of at.passEnv ?? []) if (!(name in c.env)) fixed.push('-e', name)
  for (const volume of c.volumes) fixed.push('-v', volume)
  const words = [
    runtime,
    ...fixed.map(shellQuote),
    ...shellWords(c.runArgs),
    shellQuote(c.image),
    ...shellWords(c.command),
  ]
  return `exec ${words.join(' ')}`
}

export interface Ran {
  code: number | null
  stdout: string
  stderr: string
  /** Why there is no exit code: the binary is missing, it was killed at the timeout, or the run was cancelled. */
  failure?: 'not found' | 'timed out' | 'aborted'
}

/** After the timeout's SIGTERM, what a runtime CLI gets before SIGKILL: one that ignores SIGTERM must not block teardown. */
const KILL_AFTER_MS = 2_000
/** What is kept of a runtime CLI's output (ids, one inspect value, an error line). */
const OUTPUT_CHARS = 1024 * 1024

/**
 * Runs the runtime's CLI without a shell; never throws (a missing binary is code null). At `timeoutMs`, or when
 * `signal` aborts, it gets SIGTERM and, KILL_AFTER_MS later, SIGKILL; its output is kept up to OUTPUT_CHARS.
 */
export function runtimeExec(
  runtime: Runtime,
  args: string[],
  timeoutMs = COMMAND_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(runtime, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const out = { stdout: '', stderr: '' }
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8')
      child[name].on('data', (text: string) => {
        if (out[name].length < OUTPUT_CHARS) out[name] += text.slice(0, OUTPUT_CHARS - out[name].length)
      })
    }
    let ended: Ran['failure']
    let kill: NodeJS.Timeout | undefined
    const end = (why: 'timed out' | 'aborted') => {
      if (ended) return
      ended = why
      child.kill('SIGTERM')
      kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS)
    }
    const timer = setTimeout(() => end('timed out'), timeoutMs)
    const onAbort = () => end('aborted')
    signal?.addEventListener('abort', onAbort, { once: true })
    if (signal?.aborted) onAbort()
    let settled = false
    const finish = (ran: Ran) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(kill)
      signal?.removeEventListener('abort', onAbort)
      resolve(ran)
    }
    child.once('error', (error: NodeJS.ErrnoException) =>
      finish({ code: null, ...out, ...(error.code === 'ENOENT' && { failure: 'not found' as const }) }),
    )
    const exited = (code: number | null) =>
      finish({ code: ended ? null : code, ...out, ...(ended && { failure: ended }) })
    // A helper the CLI left holding its output must not hold the call: past a second after the exit, stop waiting.
    child.once('exit', (code) => setTimeout(() => exited(code), 1000).unref())
    child.once('close', exited)
  })
}

export interface DetectedRuntime {
  runtime: Runtime
  /** Why, for the log: a runner user outside the `docker` group gets podman, and should read why. */
  why: string
}

let detected: Promise<DetectedRuntime> | undefined

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.slice(0, 200) ?? ''
}

/** docker when a docker daemon answers (a docker CLI without a daemon does not count), else podman. */
export function detectRuntime(): Promise<DetectedRuntime> {
  detected ??= runtimeExec('docker', ['version', '--format', '{{.Server.Version}}'], DETECT_TIMEOUT_MS).then(
    (r): DetectedRuntime => {
      const version = r.stdout.trim()
      if (r.code === 0 && version) return { runtime: 'docker', why: `the docker daemon answers (${lastLine(version)})` }
      if (r.failure === 'not found') return { runtime: 'podman', why: 'no docker command' }
      if (r.failure === 'timed out')
        return { runtime: 'podman', why: `\`docker version\` did not answer within ${DETECT_TIMEOUT_MS / 1000}s` }
      return { runtime: 'podman', why: `the docker daemon did not answer (${lastLine(r.stderr) || `exit ${r.code}`})` }
    },
  )
  return detected
}

/** True while the container runs; undefined when the runtime cannot say (no such container, runtime gone). */
export async function containerRunning(runtime: Runtime, name: string): Promise<boolean | undefined> {
  const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.Running}}', name], 10_000)
  return r.code === 0 ? r.stdout.trim() === 'true' : undefined
}

/** The container's first process as the host numbers it (`.State.Pid`; 0 once stopped): the engine descends from it. */
export async function containerPid(runtime: Runtime, name: string): Promise<number | undefined> {
  const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.Pid}}', name], 10_000)
  const pid = r.code === 0 ? Number(r.stdout.trim()) : NaN
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

export async function containerExitCode(runtime: Runtime, name: string): Promise<number | null> {
  const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.ExitCode}}', name], 10_000)
  const code = Number(r.stdout.trim())
  return r.code === 0 && Number.isInteger(code) ? code : null
}

/** `stop -t <grace>` then `rm -f`, by name; what the runtime said when it failed. */
export async function removeContainer(runtime: Runtime, name: string, graceMs: number): Promise<string | undefined> {
  const stop = await runtimeExec(
    runtime,
    ['stop', '-t', String(Math.max(0, Math.ceil(graceMs / 1000))), name],
    graceMs + COMMAND_TIMEOUT_MS,
  )
  const rm = await runtimeExec(runtime, ['rm', '-f', name])
  if (rm.code === 0) return undefined
  return `${runtime} rm -f ${name}: ${(rm.stderr || stop.stderr).trim().split('\n').pop() || `exit ${rm.code}`}`
}

/**
 * Removes every container carrying this run's label, running or not (a SIGINT during creation can
 * leave one `Created`). Containers without the label, or with another run's, are never touched.
 * Returns the ids removed (podman) or found (docker).
 */
export async function removeByLabel(runtime: Runtime, runId: string): Promise<string[]> {
  const filter = `label=${RUN_LABEL}=${runId}`
  const listed = await runtimeExec(runtime, ['ps', '-aq', '--filter', filter])
  const ids =
    listed.code === 0
      ? listed.stdout
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
      : []
  if (runtime === 'podman') {
    // `-t 0`: without it podman waits 10 s per container before killing it.
    await runtimeExec('podman', ['rm', '-f', '-t', '0', '--filter', filter])
  } else if (ids.length) {
    // docker's `rm` takes no filter: list by label, remove by id.
    await runtimeExec('docker', ['rm', '-f', ...ids])
  }
  return ids
}

export interface ContainerIdentity {
  runtime: string
  image: string
  digest?: string
}

/** The image the container runs: podman's tag and manifest digest; docker's image id and the image's first repo digest. */
export async function containerIdentity(runtime: Runtime, name: string, image: string): Promise<ContainerIdentity> {
  if (runtime === 'podman') {
    const r = await runtimeExec('podman', ['inspect', '--format', '{{.ImageName}}|{{.ImageDigest}}', name], 10_000)
    const [tag, digest] = r.code === 0 ? r.stdout.trim().split('|') : []
    return { runtime, image: tag || image, ...(digest ? { digest } : {}) }
  }
  const id = (await runtimeExec('docker', ['inspect', '--format', '{{.Image}}', name], 10_000)).stdout.trim()
  const repo = id
    ? (
        await runtimeExec('docker', ['image', 'inspect', '--format', '{{join .RepoDigests " "}}', id], 10_000)
      ).stdout.trim()
    : ''
  const digest = repo.split(' ')[0]?.split('@')[1] || id
  return { runtime, image, ...(digest ? { digest } : {}) }
}

/** What an error quotes of the runtime's stderr: its last lines, newest first kept (podman prints retries, then the error). */
const STDERR_LINES = 3
const STDERR_CHARS = 600

/** The last STDERR_LINES lines that fit in STDERR_CHARS (the last one always, clipped), on one line, redacted. */
function stderrTail(ran: Ran): string {
  const lines = ran.stderr
    .split(/\r?\n|\r/)
    .map((line) => redactLine(line, STDERR_CHARS))
    .filter(Boolean)
  const kept: string[] = []
  for (const line of lines.slice(-STDERR_LINES).reverse()) {
    if (kept.length && [line, ...kept].join(' | ').length > STDERR_CHARS) break
    kept.unshift(line)
  }
  return kept.join(' | ') || 'no message'
}

/** Why a runtime call gave no answer: the binary is missing, it hung past its bound, or the run was cancelled. */
function noAnswer(runtime: Runtime, call: string, ran: Ran, timeoutMs: number): string | undefined {
  if (ran.failure === 'not found') return `no \`${runtime}\` command on PATH`
  if (ran.failure === 'timed out') return `\`${runtime} ${call}\` did not finish within ${formatDuration(timeoutMs)}`
  if (ran.failure === 'aborted') return `cancelled during \`${runtime} ${call}\``
  return undefined
}

/**
 * Whether the runtime has the image locally, asking no registry. podman: `image exists` exits 0 when it does, 1
 * when it does not, 125 on an error (podman-image-exists(1)). docker: `image inspect` exits 0, or 1 with "No such
 * image" on stderr (docs.docker.com, `docker image inspect`). Any other answer throws: the runtime cannot say.
 */
export async function imagePresent(runtime: Runtime, image: string, signal?: AbortSignal): Promise<boolean> {
  const args = runtime === 'podman' ? ['image', 'exists', image] : ['image', 'inspect', '--format', '{{.Id}}', image]
  const ran = await runtimeExec(runtime, args, COMMAND_TIMEOUT_MS, signal)
  const failed = noAnswer(runtime, args.slice(0, 2).join(' '), ran, COMMAND_TIMEOUT_MS)
  if (failed) throw new Error(`cannot tell whether image ${image} is present: ${failed}`)
  if (ran.code === 0) return true
  if (ran.code === 1 && (runtime === 'podman' || /no such (image|object)/i.test(ran.stderr))) return false
  throw new Error(
    `cannot tell whether image ${image} is present: \`${runtime} ${args.slice(0, 2).join(' ')}\` exited with code ${ran.code}: ${stderrTail(ran)}`,
  )
}

/** `pull <image>`, bounded by `timeoutMs` and `signal`; throws naming the image with the runtime's last stderr lines. */
export async function pullImage(
  runtime: Runtime,
  image: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const ran = await runtimeExec(runtime, ['pull', image], timeoutMs, signal)
  const failed =
    noAnswer(runtime, `pull ${image}`, ran, timeoutMs) ??
    (ran.code === 0 ? undefined : `\`${runtime} pull ${image}\` exited with code ${ran.code}: ${stderrTail(ran)}`)
  if (failed) throw new Error(`image ${image} is not present locally and could not be pulled: ${failed}`)
}
