/**
 * The image pull of `container:` targets through the bundled action, with a runtime stand-in on PATH (no registry,
 * no container): a target whose image is missing records the pull apart as `image_pull_s` beside `startup_s` and
 * the report shows it; one whose image is present records no pull; one whose pull fails is an error naming the
 * target and the image, and nothing the stand-in started is left running.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CellResult } from '../../src/core/results.js'
import { FAKE_ENGINE } from '../engines/fake.js'
import { runPrAction } from '../helpers/action.js'
import { fakeRuntime, PULL_PASSWORD, type FakeRuntime } from '../helpers/fake-runtime.js'
import { isGone } from '../server/procs.js'

const IMAGES = {
  pulled: 'registry.invalid/team/pulled:1.0',
  present: 'localhost/team/present:1.0',
  broken: 'registry.invalid/team/broken:1.0',
}
/** The stand-in's scripted pull. */
const PULL_S = 1
/** The stand-in's start and exit around its sleep: milliseconds idle, two seconds of room on a loaded machine. */
const PULL_OVERHEAD_S = 2

const target = (id: keyof typeof IMAGES) => [
  `  ${id}:`,
  '    engine: vllm',
  '    container:',
  `      image: ${IMAGES[id]}`,
  '      runtime: docker',
  '      gpus: none',
  `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_ENGINE)}, --dialect, vllm, --port, "{port}"]`,
]

let runtime: FakeRuntime
let run: Awaited<ReturnType<typeof runPrAction>>
const cell = (id: string): CellResult => run.results.cells.find((c) => c.target === id)!

beforeAll(async () => {
  runtime = fakeRuntime()
  runtime.present(IMAGES.present)
  runtime.pulls(IMAGES.pulled, { ok: PULL_S })
  runtime.pulls(IMAGES.broken, 'fail')
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-image-pull-'))
  const lines = [
    'version: 1',
    'defaults: { rounds: 2, discard: 1, ready-timeout: 20s, request-timeout: 20s, confirm: 0, quality: false }',
    'scenarios:',
    '  short: { input-tokens: 16, output-tokens: 8, concurrency: 1 }',
    'targets:',
    ...target('pulled'),
    ...target('present'),
    ...target('broken'),
    '',
  ]
  await writeFile(join(cwd, 'bench.yml'), lines.join('\n'))
  run = await runPrAction({ cwd, config: 'bench.yml', out: 'out', env: { PATH: `${runtime.bin}:${process.env.PATH}` } })
}, 120_000)

describe('image pull apart from startup', () => {
  it('a missing image is pulled before the run, which gets --pull=never; image_pull_s beside startup_s', () => {
    const pulled = cell('pulled')
    expect(pulled.status, run.stdout).toBe('ok')
    expect(pulled.image_pull_s).toBeGreaterThanOrEqual(PULL_S)
    expect(pulled.image_pull_s).toBeLessThan(PULL_S + PULL_OVERHEAD_S)
    expect(pulled.startup_s).toBeGreaterThan(0)
    const calls = runtime.calls().filter((c) => c.args.includes(IMAGES.pulled))
    const at = (verb: string) => calls.findIndex((c) => c.args[0] === verb)
    expect(at('pull')).toBeGreaterThan(-1)
    expect(at('pull')).toBeLessThan(at('pull-done'))
    expect(at('pull-done')).toBeLessThan(at('run'))
    const runCall = calls[at('run')]
    expect(runCall.args).toContain('--pull=never')
    expect(runCall.at).toBeGreaterThanOrEqual(calls[at('pull-done')].at)
    expect(calls.filter((c) => c.args[0] === 'pull')).toHaveLength(1)
    expect(run.report).toMatch(/engine vllm · version [^\n]* · startup [\d.]+m?s \(image pull [\d.]+m?s apart\)/)
    console.log(`scripted pull ${PULL_S}s: image_pull_s ${pulled.image_pull_s}, startup_s ${pulled.startup_s}`)
  })

  it('a present image is not pulled and its cells carry no image_pull_s', () => {
    const present = cell('present')
    expect(present.status, run.stdout).toBe('ok')
    expect(present).not.toHaveProperty('image_pull_s')
    expect(present.startup_s).toBeGreaterThan(0)
    const verbs = runtime
      .calls()
      .filter((c) => c.args.includes(IMAGES.present))
      .map((c) => c.args[0])
    expect(verbs).toEqual(['image', 'run'])
    const section = run.report.slice(run.report.indexOf('#### present'))
    expect(section.split('\n')[2]).toMatch(/ · startup [\d.]+m?s$/)
  })

  it('a failing pull is an error naming the target and the image; nothing runs and nothing is left', () => {
    const broken = cell('broken')
    expect(broken.status).toBe('error')
    expect(broken.error).toContain(`broken: image ${IMAGES.broken} is not present locally and could not be pulled`)
    expect(broken.error).toContain('no such host')
    expect(run.results.cells.map((c) => c.error ?? '').join('\n')).not.toContain(PULL_PASSWORD)
    expect(run.report).not.toContain(PULL_PASSWORD)
    expect(run.report).toContain(`image ${IMAGES.broken} is not present locally`)
    const calls = runtime.calls()
    expect(calls.filter((c) => c.args.includes(IMAGES.broken)).map((c) => c.args[0])).toEqual(['image', 'pull'])
    for (const call of calls) expect(isGone(call.pid), `${call.args.join(' ')} (pid ${call.pid})`).toBe(true)
    expect(run.code).not.toBe(0)
  })
})
