/**
 * `container:` targets on real runtimes (podman, and docker with its daemon; the same offline engine
 * image in both), through the bundled action: measured like any target with the image's identity in
 * the results; SIGKILL of the action mid-cell leaves no container of the run's label (the watchdog),
 * the post step then finds nothing, and a container of another label is never touched. Also the real
 * llama-server inside a container, and the runtime chosen when the file names none.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { ROOT, onceStdout, runAction, type ActionRun } from '../helpers/action.js'
import { ENGINE_IMAGE, docker, llamaCpp, podman } from './prereq.js'

type Runtime = 'podman' | 'docker'
const LABEL = 'llm-bench-gate.run'
const cli = (runtime: Runtime, ...args: string[]) =>
  execFileSync(runtime, args, { encoding: 'utf8', timeout: 60_000 }).trim()
const ofRun = (runtime: Runtime, runId: string) =>
  cli(runtime, 'ps', '-aq', '--filter', `label=${LABEL}=${runId}`).split('\n').filter(Boolean)
const bystanders: [Runtime, string][] = []
const PREREQ: Record<Runtime, () => { version: string; image: string }> = { podman, docker }

afterAll(() => {
  // podman without `-t 0` waits 10 s before killing; docker's rm has no -t.
  for (const [runtime, name] of bystanders) cli(runtime, 'rm', '-f', ...(runtime === 'podman' ? ['-t', '0'] : []), name)
})

/** The run id the main step saved for its post step. */
function runIdOf(run: ActionRun | { state: Record<string, string> }): string {
  const tasks = JSON.parse(run.state.cleanup ?? '[]') as { kind: string; runId?: string }[]
  const id = tasks.find((t) => t.kind === 'containers')?.runId
  if (!id) throw new Error(`no container task in the saved state: ${run.state.cleanup}`)
  return id
}

async function config(
  target: string[],
  scenario = '  short: { input-tokens: 16, output-tokens: 8, concurrency: 2 }',
  defaults = 'rounds: 2, discard: 1',
) {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-container-'))
  const lines = [
    'version: 1',
    `defaults: { ${defaults}, ready-timeout: 90s, request-timeout: 60s, quality: false }`,
    'scenarios:',
    scenario,
    'targets:',
    ...target,
    '',
  ]
  await writeFile(join(cwd, 'bench.yml'), lines.join('\n'))
  return cwd
}

const fakeTarget = (runtime: Runtime | undefined, extra = '') => [
  '  boxed:',
  '    engine: vllm',
  '    model: boxed',
  '    container:',
  `      image: ${ENGINE_IMAGE}`,
  ...(runtime ? [`      runtime: ${runtime}`] : []),
  '      gpus: none',
  `      volumes: ["${ROOT}:/repo:ro"]`,
  `      command: [node, /repo/test/helpers/fake-engine.mjs, --dialect, vllm, --port, "{port}", --model, boxed${extra}]`,
]

describe.each(['podman', 'docker'] as const)('container targets on %s', (runtime) => {
  it('a container target is measured, records its image and leaves no container', async () => {
    const { image } = PREREQ[runtime]()
    const cwd = await config(fakeTarget(runtime))
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 170_000 })
    expect(run.code, run.stdout).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
    const [cell] = results.cells
    expect(cell.status, run.stdout).toBe('ok')
    expect(cell.info.launch).toMatch(new RegExp(`^exec ${runtime} run --init --network host --name llm-bench-`))
    expect(cell.info.container).toMatchObject({ runtime, image })
    // podman: the manifest digest; docker: the image id (an imported image has no repo digest).
    expect(cell.info.container?.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    // The image is local: the runtime said so before the launch, nothing was pulled, and the run may not pull.
    expect(cell).not.toHaveProperty('image_pull_s')
    expect(cell.info.launch).toContain(' --pull=never ')
    expect(run.stdout).not.toMatch(/boxed: (image .* is not present|pulled image)/)
    expect(ofRun(runtime, runIdOf(run))).toEqual([])
  })

  it('pass-env reaches the engine inside the container, and its value never the command line or the files', async () => {
    const secret = `hf_${process.pid}secretvalue`
    // A folder the engine writes what it saw into.
    const seen = await mkdtemp(join(tmpdir(), 'lbg-pass-env-'))
    const cwd = await config([
      '  boxed:',
      '    engine: vllm',
      '    model: boxed',
      '    pass-env: [HF_TOKEN]',
      '    container:',
      `      image: ${ENGINE_IMAGE}`,
      `      runtime: ${runtime}`,
      '      gpus: none',
      `      volumes: ["${ROOT}:/repo:ro", "${seen}:/out"]`,
      '      command: [node, /repo/test/helpers/fake-engine.mjs, --dialect, vllm, --port, "{port}", --model, boxed, --record-env, "HF_TOKEN=/out/token"]',
    ])
    const run = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'results-dir': 'out' },
      env: { HF_TOKEN: secret },
      timeoutMs: 170_000,
    })
    expect(run.code, run.stdout).toBe(0)
    // The engine saw the value: `-e HF_TOKEN` without one makes the runtime take it from its own environment.
    expect(await readFile(join(seen, 'token'), 'utf8')).toBe(secret)
    const results = await readFile(join(cwd, 'out/results.json'), 'utf8')
    expect((JSON.parse(results) as ResultsFile).cells[0].info.launch).toMatch(/ -e HF_TOKEN /)
    for (const text of [results, run.stdout, run.summary, await readFile(join(cwd, 'out/logs/boxed.log'), 'utf8')])
      expect(text).not.toContain(secret)
  })

  it('a run -d style launch that exits 0 while its container serves is not an engine exit', async () => {
    const cwd = await config([...fakeTarget(runtime), '      run-args: [-d]'])
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 170_000 })
    expect(run.code, run.stdout).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
    expect(results.cells[0].status, run.stdout).toBe('ok')
    expect(await readFile(join(cwd, 'out/logs/boxed.log'), 'utf8')).toMatch(/launch process exited \(code 0\)/)
    expect(ofRun(runtime, runIdOf(run))).toEqual([])
  })

  it('SIGKILL mid-cell: no container of the run within 2 s; the post step finds nothing; another label survives', async () => {
    const bystander = `lbg-bystander-${runtime}-${process.pid}`
    cli(
      runtime,
      'run',
      '-d',
      '--init',
      '--name',
      bystander,
      '--label',
      `${LABEL}=someone-else`,
      ENGINE_IMAGE,
      'sleep',
      '600',
    )
    bystanders.push([runtime, bystander])
    const cwd = await config(
      fakeTarget(runtime, ', --itl-ms, "20"'),
      '  long: { input-tokens: 16, output-tokens: 3000, concurrency: 1 }',
    )
    let killedAt = 0
    let running = ''
    const run = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'results-dir': 'out' },
      timeoutMs: 170_000,
      // Mid-cell: a second after ready, the first round is streaming.
      onSpawn: (child) =>
        onceStdout(child, /boxed: ready at/, () =>
          setTimeout(() => {
            running = cli(runtime, 'ps', '-q', '--filter', 'name=llm-bench-4242-', '--filter', 'status=running')
            killedAt = Date.now()
            child.kill('SIGKILL')
          }, 1000),
        ),
    })
    expect(run.code, run.stdout).toBeNull()
    expect(running, 'the container was serving when the action was killed').not.toBe('')
    const runId = runIdOf(run)
    let left = ofRun(runtime, runId)
    while (left.length && Date.now() - killedAt < 2000) {
      await delay(50)
      left = ofRun(runtime, runId)
    }
    const goneAfterMs = Date.now() - killedAt
    expect(left, `containers of run ${runId} ${goneAfterMs} ms after SIGKILL`).toEqual([])
    expect(goneAfterMs).toBeLessThan(2000)
    console.log(`${runtime}: container of run ${runId} gone ${goneAfterMs} ms after SIGKILL of the action`)

    const post = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'results-dir': 'out' },
      state: { ...run.state, isPost: 'true' },
    })
    expect(post.code, post.stdout).toBe(0)
    expect(post.stdout).toMatch(/post: no container of this run left/)
    expect(cli(runtime, 'inspect', '--format', '{{.State.Running}}', bystander)).toBe('true')
  })

  it('the real llama-server inside a container is measured end to end', async () => {
    const llama = llamaCpp()
    const cwd = await config(
      [
        '  llama-boxed:',
        '    engine: llamacpp',
        '    model: tiny',
        '    container:',
        `      image: ${ENGINE_IMAGE}`,
        `      runtime: ${runtime}`,
        '      gpus: none',
        `      volumes: ["${llama.dir}:${llama.dir}:ro"]`,
        `      command: ${llama.server} -m ${llama.model} --host 127.0.0.1 --port {port} -c 2048 -np 1 --metrics`,
      ],
      '  short: { input-tokens: 32, output-tokens: 16, concurrency: 1 }',
    )
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 170_000 })
    expect(run.code, run.stdout).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
    const [cell] = results.cells
    expect(cell.status, run.stdout).toBe('ok')
    expect(cell.info.version).toMatch(/b10470/)
    expect(cell.info.container?.runtime).toBe(runtime)
    expect(cell.metrics?.failed_share).toBe(0)
    // The engine runs under the runtime (conmon, containerd-shim), not in the group this run launched; it decodes on
    // the CPU here, so counted as another process it would be the busiest one. Its processes are ours all the same.
    const steady = cell.rounds.filter((r) => r.steady)
    expect(steady.length).toBeGreaterThan(0)
    for (const r of steady) {
      expect(r.host?.cpu, JSON.stringify(r.host)).toBeDefined()
      expect(r.host?.cpu?.top.map((p) => p.comm)).not.toContain('llama-server')
    }
    expect(ofRun(runtime, runIdOf(run))).toEqual([])
  })
})

describe('the runtime of a container target that names none', () => {
  it('is docker while a docker daemon answers', async () => {
    docker()
    const cwd = await config(fakeTarget(undefined))
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 170_000 })
    expect(run.code, run.stdout).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
    expect(results.cells[0].info.container?.runtime, run.stdout).toBe('docker')
    expect(run.stdout).toMatch(
      /boxed: container runtime docker: the docker daemon answers \(\d+\.\d+[^)]*\) \(set container.runtime to choose\)/,
    )
    expect(ofRun('docker', runIdOf(run))).toEqual([])
  })
})
