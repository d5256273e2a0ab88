/**
 * Engines and their lifecycle end to end through the bundled action: fake engines in each
 * dialect launched as child processes, start failures next to a healthy target, SIGINT in the
 * middle of a measurement followed by the post step, and faults during measurement.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { ROOT, onceStdout, runAction, type ActionRun } from '../helpers/action.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'
import { isGone, killGroupQuietly, psGroup } from '../server/procs.js'

const FAKE = join(ROOT, 'test/helpers/fake-engine.mjs')
const fake = (args: string) => `node ${FAKE} --port {port} ${args}`
const leftovers: number[] = []

afterEach(() => {
  for (const pgid of leftovers.splice(0)) killGroupQuietly(pgid)
})

async function runMatrix(
  targets: string[],
  extra: { scenario?: string; defaults?: string } = {},
  onSpawn?: Parameters<typeof runAction>[0]['onSpawn'],
) {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-engines-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      `defaults: { rounds: 2, discard: 1, ready-timeout: 20s, request-timeout: 20s${extra.defaults ?? ''} }`,
      'scenarios:',
      `  s: ${extra.scenario ?? '{ input-tokens: 16, output-tokens: 12, concurrency: 2 }'}`,
      'targets:',
      ...targets,
      '',
    ].join('\n'),
  )
  const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, onSpawn })
  for (const pgid of pgidsOf(run)) leftovers.push(pgid)
  // A SIGKILLed step writes nothing: that case reads no results.
  const text = await readFile(join(cwd, 'out', 'results.json'), 'utf8').catch(() => '{"cells":[]}')
  return { run, results: JSON.parse(text) as ResultsFile, cwd }
}

const pgidsOf = (run: ActionRun): number[] => (run.state.pgids ? (JSON.parse(run.state.pgids) as number[]) : [])
const cell = (results: ResultsFile, id: string) => results.cells.find((c) => c.id === id)!

describe('each engine dialect through the bundled action', () => {
  it('waits out refused-while-loading (vLLM) and 503-while-loading (SGLang, llama.cpp), then measures', async () => {
    const { run, results, cwd } = await runMatrix([
      `  v:\n    engine: vllm\n    launch: ${fake('--dialect vllm --load-ms 1200 --ttft-ms 30 --itl-ms 5')}`,
      `  g:\n    engine: sglang\n    launch: ${fake('--dialect sglang --load-ms 1200 --ttft-ms 30 --itl-ms 5')}`,
      `  l:\n    engine: llamacpp\n    launch: ${fake('--dialect llamacpp --load-ms 1200 --ttft-ms 30 --itl-ms 5')}`,
    ])
    expect(run.code, run.stdout).toBe(0)
    for (const id of ['v/s', 'g/s', 'l/s']) {
      const c = cell(results, id)
      expect(c.status, `${id}: ${c.error}`).toBe('ok')
      expect(c.metrics!.ttft_ms.mean).toBeGreaterThanOrEqual(30)
      expect(c.rounds.every((r) => r.errors === 0)).toBe(true)
      expect(c.info.version, id).toBeTruthy()
    }
    expect(pgidsOf(run)).toHaveLength(3)
    for (const pgid of pgidsOf(run)) expect(psGroup(pgid)).toEqual([])
    const log = await readFile(join(cwd, 'out', 'logs', 'v.log'), 'utf8')
    expect(log).toContain('fake-engine: ready')
  })
})

describe('start failures', () => {
  it('an engine that exits with code 3 and one never ready are errors with their log tails; the healthy one is measured', async () => {
    const { run, results } = await runMatrix([
      `  crash:\n    engine: vllm\n    launch: 'echo "fatal: CUDA error: out of memory" >&2; exit 3'`,
      `  stuck:\n    engine: sglang\n    ready-timeout: 4s\n    launch: ${fake('--dialect sglang --never-ready')}`,
      `  healthy:\n    engine: vllm\n    launch: ${fake('--dialect vllm --ttft-ms 20 --itl-ms 5')}`,
    ])
    const crash = cell(results, 'crash/s')
    expect(crash.status).toBe('error')
    expect(crash.error).toMatch(/code 3/)
    expect(crash.info.logTail).toContain('fatal: CUDA error: out of memory')
    const stuck = cell(results, 'stuck/s')
    expect(stuck.status).toBe('error')
    expect(stuck.error).toMatch(/not ready after 4s/)
    expect(stuck.info.logTail).toContain('loading model (forever)')
    expect(cell(results, 'healthy/s').status).toBe('ok')
    expect(run.outputs.verdict).toBe('error')
    expect(run.code).toBe(1)
    expect(run.summary).toContain('fatal: CUDA error: out of memory')
    for (const pgid of pgidsOf(run)) expect(psGroup(pgid)).toEqual([])
  })
})

describe('cancellation', () => {
  const longScenario = '{ input-tokens: 16, output-tokens: 400, concurrency: 2 }'
  const launch = `sleep 3000 & ${fake('--dialect vllm --ttft-ms 20 --itl-ms 50 --fork-grandchild')}`

  async function grandchildren(cwd: string): Promise<number[]> {
    const log = await readFile(join(cwd, 'out', 'logs', 't.log'), 'utf8')
    return [...log.matchAll(/grandchild pid (\d+)/g)].map((m) => Number(m[1]))
  }

  it('SIGINT mid-measurement tears the launch down, grandchildren included, before the runner escalates', async () => {
    let sentAt = 0
    const { run, results, cwd } = await runMatrix(
      [`  t:\n    engine: vllm\n    launch: ${launch}`],
      { scenario: longScenario },
      (child) =>
        onceStdout(child, /ready at/, () => {
          sentAt = Date.now()
          setTimeout(() => child.kill('SIGINT'), 1500)
        }),
    )
    expect(sentAt).toBeGreaterThan(0)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/SIGINT/)
    expect(cell(results, 't/s').status).toBe('error')
    expect(cell(results, 't/s').error).toMatch(/cancel/)
    const pgids = pgidsOf(run)
    expect(pgids).toHaveLength(1)
    // The runner sends SIGTERM 7.5 s after SIGINT: everything must be gone well before.
    expect(Date.now() - sentAt - 1500).toBeLessThan(7500)
    const post = await runAction({ inputs: {}, state: { isPost: 'true', pgids: run.state.pgids } })
    expect(post.code).toBe(0)
    expect(psGroup(pgids[0])).toEqual([])
    const spawned = await grandchildren(cwd)
    expect(spawned.length).toBeGreaterThan(0)
    for (const pid of spawned) expect(isGone(pid)).toBe(true)
  })

  // The post step may never run after a SIGKILL (a lost runner): the watchdog the main step started kills the
  // orphaned group within a couple of seconds, and the post step, when it does run, finds nothing left.
  it('when the main step is SIGKILLed, the watchdog kills what it left behind and the post step finds nothing', async () => {
    let killedAt = 0
    const { run, cwd } = await runMatrix(
      [`  t:\n    engine: vllm\n    launch: ${launch}`],
      { scenario: longScenario },
      (child) =>
        onceStdout(child, /ready at/, () => setTimeout(() => ((killedAt = Date.now()), child.kill('SIGKILL')), 800)),
    )
    expect(run.code).toBeNull()
    const pgids = pgidsOf(run)
    expect(pgids).toHaveLength(1)
    while (psGroup(pgids[0]).length && Date.now() - killedAt < 2000) await new Promise((r) => setTimeout(r, 50))
    expect(psGroup(pgids[0]), 'the orphaned engine 2 s after SIGKILL of the action').toEqual([])
    for (const pid of await grandchildren(cwd)) expect(isGone(pid)).toBe(true)
    const post = await runAction({ inputs: {}, state: { isPost: 'true', pgids: run.state.pgids } })
    expect(post.code).toBe(0)
    expect(post.stdout).toMatch(/none left alive/)
  })
})

describe('faults during measurement', () => {
  let server: ScheduledServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('cut streams and HTTP 500s are counted and listed, the rest measured, the cell flagged', async () => {
    // Every 3rd generation request is cut mid-stream and every 5th answered 500 (the 15th: 500).
    server = await startScheduledServer({ ttftMs: 40, intervalMs: 10, faults: { cutEvery: 3, httpErrorEvery: 5 } })
    const { run, results } = await runMatrix([`  t:\n    engine: openai\n    url: ${server.url}\n    model: m`], {
      scenario: '{ input-tokens: 16, output-tokens: 20, concurrency: 3, requests: 15 }',
    })
    expect(run.code, run.stdout).toBe(0)
    const c = cell(results, 't/s')
    expect(c.status).toBe('ok')
    // Per round of 15 requests: 5 cut (3, 6, 9, 12 and 15 is a 500), 3 answered 500 (5, 10, 15) → 4 + 3 = 7 failed.
    for (const round of c.rounds) {
      expect(round.requests).toBe(15)
      expect(round.errors).toBe(7)
      const reasons = round.errorReasons.map((e) => e.reason).join(' | ')
      expect(reasons).toMatch(/500/)
      expect(reasons).toMatch(/cut|closed|terminated|ended/i)
    }
    expect(c.metrics!.ttft_ms.mean).toBeGreaterThanOrEqual(40)
    expect(Math.abs(c.metrics!.tpot_ms.mean - 10) / 10).toBeLessThan(0.1)
    expect(c.flags.length).toBeGreaterThan(0)
    expect(c.verdict.status).toBe('inconclusive')
  })
})
