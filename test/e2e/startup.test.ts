/**
 * Startup end to end, through the bundled action: a simulated engine that refuses connections for its
 * `load-time` (1 s) before it serves, next to a `url:` target that is already up. The simulator's schedule bounds
 * the launched target's `startup_s` from below by the load time; the baseline file's is set to 0.25 s, so the
 * change (≥ +300 %) is past twice the 20 % limit whatever the noise. A default-branch run writes the history entry
 * and the dashboard through the fake GitHub API.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { runAction, runPrAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'

const LOAD_S = 1
const BASELINE_S = 0.25
const LAUNCHED = ['sim/chat', 'sim/long']
const ATTACHED = ['attached/chat', 'attached/long']
/**
 * The runs without gate.startup gate TPOT at +50 % against the first run. 63 gaps make each decode window at least
 * 590 ms (the sim's 9.35 ms steps) and 1,260 ms (the attached engine's 20 ms), which two late wake-ups of a loaded
 * runner (test/helpers/load.ts) move by 17 % and 8 % at most: one run's TPOT over another's stays under 1.41.
 */
const OUTPUT_TOKENS = 64

let cwd: string
let github: FakeGitHub
let engine: Awaited<ReturnType<typeof startScheduledServer>>

async function writeConfig(name: string, gate: string): Promise<void> {
  await writeFile(
    join(cwd, name),
    [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 0, quality: false }',
      `gate: ${gate}`,
      'scenarios:',
      `  chat: { input-tokens: 32, output-tokens: ${OUTPUT_TOKENS}, concurrency: 2 }`,
      `  long: { input-tokens: 64, output-tokens: ${OUTPUT_TOKENS}, concurrency: 1 }`,
      'targets:',
      `  sim: { engine: sim, profile: vllm-qwen35-08b, time-scale: 1, load-time: ${LOAD_S}s, seed: 3 }`,
      `  attached: { engine: openai, url: ${engine.url}, model: scheduled }`,
      '',
    ].join('\n'),
  )
}

const cellsOf = (results: ResultsFile, ids: string[]) => ids.map((id) => results.cells.find((c) => c.id === id)!)

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-startup-'))
  github = await startFakeGitHub()
  engine = await startScheduledServer({ ttftMs: 20, intervalMs: 20 })
})
afterAll(async () => {
  await engine?.close()
  await github?.close()
})

describe('startup_s and the startup metric', () => {
  let measured: Awaited<ReturnType<typeof runPrAction>>
  let gated: Awaited<ReturnType<typeof runPrAction>>
  let ungated: Awaited<ReturnType<typeof runPrAction>>

  beforeAll(async () => {
    await writeConfig('run.yml', '{ tpot: { max-regression: 50% } }')
    measured = await runPrAction({ cwd, config: 'run.yml', out: 'measured' })
    // The baseline: this run's cells, the launched target's startup set shorter than the load time allows.
    const baseline = structuredClone(measured.results)
    for (const cell of cellsOf(baseline, LAUNCHED)) cell.startup_s = BASELINE_S
    await writeFile(join(cwd, 'base.json'), JSON.stringify(baseline))
    await writeConfig('gated.yml', '{ startup: { max-regression: 20% } }')
    // Two runs at once: each is the load beside the other that its bounds allow for (OUTPUT_TOKENS, LOAD_S).
    ;[gated, ungated] = await Promise.all([
      runPrAction({ cwd, config: 'gated.yml', out: 'gated', baseline: 'base.json' }),
      runPrAction({ cwd, config: 'run.yml', out: 'ungated', baseline: 'base.json' }),
    ])
  }, 300_000)

  it('every cell of the launched target records startup_s of at least its load time; the url: target none', () => {
    expect(measured.code, measured.stdout).toBe(0)
    for (const cell of cellsOf(measured.results, LAUNCHED)) expect(cell.startup_s).toBeGreaterThanOrEqual(LOAD_S)
    // One launch, one figure for all of the target's cells.
    const [chat, long] = cellsOf(measured.results, LAUNCHED)
    expect(long.startup_s).toBe(chat.startup_s)
    for (const cell of cellsOf(measured.results, ATTACHED)) expect(cell).not.toHaveProperty('startup_s')
    expect(measured.stdout).toMatch(/sim: ready at http:\/\/127\.0\.0\.1:\d+; startup [\d.]+s \(health ready after/)
    expect(measured.report).toMatch(/engine sim · version [^\n]* · startup [\d.]+s/)
  })

  it('with gate.startup, a slower start than the baseline file is a regression on startup, named', () => {
    expect(gated.code, gated.stdout).not.toBe(0)
    for (const cell of cellsOf(gated.results, LAUNCHED)) {
      expect(cell.verdict.status).toBe('regression')
      expect(cell.verdict.metrics.startup).toMatchObject({ status: 'regression', baseline: BASELINE_S })
      expect(cell.verdict.metrics.startup!.reason).toMatch(
        /^startup \+\d+\.\d% \(limit 20%, noise ±[\d.]+%\): more than twice the limit$/,
      )
    }
    // Nothing launched, nothing to compare: the url: target passes on what it has.
    for (const cell of cellsOf(gated.results, ATTACHED)) expect(cell.verdict.metrics.startup).toBeUndefined()
    expect(gated.report).toMatch(/startup (?:[\d.,]+ → [\d.,]+ s, )?\+\d+\.\d% \(limit 20%/)
  })

  it('without gate.startup it is not judged, and still recorded', () => {
    expect(ungated.code, ungated.stdout).toBe(0)
    for (const cell of cellsOf(ungated.results, LAUNCHED)) {
      expect(cell.verdict.metrics.startup).toBeUndefined()
      expect(cell.startup_s).toBeGreaterThanOrEqual(LOAD_S)
    }
  })
})

describe('a default-branch run', () => {
  it('keeps startup_s in the history entry and draws its trend on the dashboard', async () => {
    await writeConfig('push.yml', '{ tpot: { max-regression: 50% } }')
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    const run = await runAction({
      cwd,
      inputs: { config: 'push.yml', 'github-token': 'test-token', hardware: 'startup-hw', 'results-dir': 'push' },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
      event: { name: 'push', ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', repository } },
      timeoutMs: 120_000,
    })
    expect(run.code, run.stdout).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'push', 'results.json'), 'utf8')) as ResultsFile
    const history = JSON.parse(github.state.readFile('llm-bench-data', 'startup-hw/history.json')!) as HistoryFile
    const [entry] = history.entries
    for (const cell of cellsOf(results, LAUNCHED))
      expect(entry.cells[cell.id].startup_s).toEqual({ steady: cell.startup_s, rounds: [] })
    for (const id of ATTACHED) expect(entry.cells[id]).not.toHaveProperty('startup_s')
    const page = github.state.readFile('llm-bench-data', 'startup-hw/index.html')!
    // One startup chart per launched cell; the url: target's cards have none.
    expect(page.match(/<figcaption>startup /g)).toHaveLength(LAUNCHED.length)
    expect(page).toMatch(/role="img" aria-label="startup/)
  }, 180_000)
})
