/**
 * Same-box A/B against the PR's base commit, through `node dist/index.js` (SPEC §14): a workspace that is a git
 * checkout of a head commit whose base commit is not there (depth 1), a pull_request event naming the base, the
 * simulator as the engine with its speed set by the matrix file at each commit (`time-scale`), and the box's speed
 * (`LLM_BENCH_GATE_SIM_BOX_FACTOR`) shared by both arms. The stored baseline is a results file measured earlier
 * at box factor 1 under driver 580.95; the PR runs under driver 590.10 (the scripted nvidia-smi), so its
 * fingerprint differs from the baseline's and `ab: confirm` wants an A/B for every cell.
 *
 * The simulator's decode steps take 25 ms of simulated time, so a launch's decode tok/s is 40 × time-scale × box
 * factor, exactly but for the wall clock's lag. The figures below are that far from every limit: equal arms
 * differ by lag alone (a few per cent at most on this machine); a 12 % slower PR is beyond the 5 % limit by more
 * than twice the launch-to-launch band the 1.5 % noise floor gives two pairs (±2.9 %).
 */
import { readdirSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { setTimeout as delay } from 'node:timers/promises'
import { onceStdout, runAction } from '../helpers/action.js'
import { PROFILE, box, gitWorkspace, storedBaseline, type GitWorkspace } from '../helpers/ab-box.js'
import { psGroup } from '../server/procs.js'
import { git, prEvent, worktreeList } from '../helpers/git-origin.js'

function matrix(timeScale: number, o: { defaults?: string; scenarios?: string } = {}): string {
  return [
    'version: 1',
    'hardware: box',
    // confirm: 0, since no test here looks at a re-measurement: the stored verdicts they start from are a 15 % loss
    // (past twice the 5 % limit: a regression whatever the noise) or a pass.
    `defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 30s, quality: false${o.defaults ?? ''} }`,
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  short: { input-tokens: 32, output-tokens: 24, concurrency: 2 }',
    o.scenarios ?? '',
    'targets:',
    '  sim:',
    '    engine: sim',
    '    profile: profiles/box.json',
    `    time-scale: ${timeScale}`,
    '',
  ].join('\n')
}

interface PrRun {
  code: number | null
  stdout: string
  results: ResultsFile
  report: string
  runnerTemp: string
}

async function prRun(
  ws: GitWorkspace,
  env: Record<string, string>,
  /** The head repository of a pull request from a fork. */
  fork?: string,
): Promise<PrRun> {
  const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
  const run = await runAction({
    cwd: ws.checkout,
    inputs: { config: 'bench.yml', 'baseline-file': baseline, 'results-dir': 'out' },
    env: { ...env, RUNNER_TEMP: runnerTemp },
    event: prEvent(ws.base, fork),
    timeoutMs: 180_000,
  })
  const results = JSON.parse(await readFile(join(ws.checkout, 'out', 'results.json'), 'utf8')) as ResultsFile
  const report = await readFile(join(ws.checkout, 'out', 'report.md'), 'utf8')
  return { code: run.code, stdout: run.stdout, results, report, runnerTemp }
}

/** No worktree of ours is left: none under RUNNER_TEMP, none registered with the checkout. */
function noWorktreeLeft(ws: GitWorkspace, runnerTemp: string): void {
  expect(readdirSync(runnerTemp).filter((name) => name.startsWith('llm-bench-gate-base-'))).toEqual([])
  expect(worktreeList(ws.checkout)).toEqual([ws.checkout])
}

let baseline: string

beforeAll(async () => {
  baseline = await storedBaseline(matrix(1))
}, 120_000)

describe('same-box A/B against the base commit', () => {
  it('the box became 15 % slower: off fails on the stored baseline, confirm finds base and PR equal here', async () => {
    // The PR changes only its README: nothing that matters for speed, but the target lists no paths.
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE, 'README.md': 'a\n' },
      head: { 'README.md': 'b\n' },
    })
    const slower = box(0.85, '590.10')
    const offWs = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: { 'bench.yml': matrix(1, { defaults: ', ab: off' }) },
    })
    const off = await prRun(offWs, slower)
    expect(off.results.cells[0].verdict.status).toBe('regression')
    expect(off.results.cells[0].ab).toBeUndefined()
    expect(off.code).toBe(1)

    const confirmed = await prRun(ws, slower)
    const cell = confirmed.results.cells[0]
    expect(cell.ab?.status).toBe('ran')
    expect(cell.ab?.stored?.status).toBe('regression')
    expect(cell.verdict.status).toBe('pass')
    expect(confirmed.code).toBe(0)
    expect(cell.ab?.arms?.map((a) => a.arm)).toEqual(['base', 'pr', 'pr', 'base'])
    // The base commit was not in the depth-1 checkout: it was fetched.
    expect(confirmed.stdout).toMatch(/the base commit [0-9a-f]{7} is not in the checkout: fetching it from origin/)
    expect(confirmed.report).toContain('base and PR equal on this box')
    expect(confirmed.report).toContain('driver 580.95.05 → 590.10')
    expect(confirmed.report).toMatch(/Same-box A\/B against the base `[0-9a-f]{7}` \(ABBA × 2\).*base arms \d/)
    noWorktreeLeft(ws, confirmed.runnerTemp)
  }, 300_000)

  it('the PR is 12 % slower than its base here, the stored baseline looks fine: A/B regression; a new cell says so', async () => {
    // The stored baseline was measured on a box 15 % slower than this one is today.
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: {
        'bench.yml': matrix(0.88, { scenarios: '  added: { input-tokens: 48, output-tokens: 24, concurrency: 1 }' }),
      },
    })
    const run = await prRun(ws, box(1.15, '590.10'))
    const [short, added] = ['sim/short', 'sim/added'].map((id) => run.results.cells.find((c) => c.id === id)!)
    expect(short.ab?.stored?.status, short.verdict.note).toBe('pass')
    expect(short.ab?.status).toBe('ran')
    expect(short.verdict.status).toBe('regression')
    const decode = short.verdict.metrics.decode!
    // 40 × 1.15 tok/s at both arms' box, the PR at 0.88 of the base's time scale.
    expect(decode.delta).toBeCloseTo(-0.12, 1)
    expect(decode.baseline / decode.current).toBeCloseTo(1 / 0.88, 1)
    expect(run.code).toBe(1)
    expect(run.report).toMatch(/decode tok\/s: base [\d.]+ tok\/s → PR [\d.]+ tok\/s, −1\d\.\d% ± /)
    expect(run.report).toContain('stored baseline: pass')
    // The base commit does not define the new cell: no A/B, and the report says why.
    expect(added.verdict.status).toBe('new')
    expect(added.ab).toMatchObject({
      status: 'not-run',
      reason: expect.stringMatching(/does not define the cell: it is new/),
    })
    expect(run.report).toMatch(
      /Same-box A\/B not run for 1 cell: the base commit `?[0-9a-f]{7}`? does not define the cell/,
    )
    noWorktreeLeft(ws, run.runnerTemp)
  }, 300_000)

  it('a fetch that is refused leaves the stored verdict and names the reason', async () => {
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: { 'README.md': 'b\n' },
    })
    git(ws.checkout, 'remote', 'set-url', 'origin', `file://${join(tmpdir(), 'lbg-no-such-origin.git')}`)
    const run = await prRun(ws, box(0.85, '590.10'))
    const cell = run.results.cells[0]
    expect(cell.verdict.status).toBe('regression')
    expect(cell.ab).toMatchObject({
      status: 'not-run',
      reason: expect.stringMatching(/fetching the base commit [0-9a-f]{7} from origin failed/),
    })
    expect(run.report).toMatch(/Same-box A\/B not run for 1 cell: fetching the base commit/)
    expect(run.code).toBe(1)
    noWorktreeLeft(ws, run.runnerTemp)
  }, 300_000)

  it('a pull request from a fork: no base arm, the stored verdict stands and the report says why', async () => {
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: { 'README.md': 'b\n' },
    })
    const run = await prRun(ws, box(0.85, '590.10'), 'someone/r')
    expect(run.results.cells[0].verdict.status).toBe('regression')
    expect(run.results.cells[0].ab?.reason).toMatch(/^the pull request comes from the fork someone\/r; /)
    expect(run.stdout).not.toMatch(/fetch|A\/B base launch/)
    expect(readdirSync(run.runnerTemp)).toEqual([])
  }, 300_000)

  it('a base engine that does not start leaves the stored verdict and names the launch', async () => {
    const broken = matrix(1).replace('    engine: sim\n', '    engine: openai\n    launch: exit 3\n    model: m\n')
    const ws = gitWorkspace({
      base: { 'bench.yml': broken.replace(/ +profile: .*\n| +time-scale: .*\n/g, ''), 'profiles/box.json': PROFILE },
      head: { 'bench.yml': matrix(1) },
    })
    const run = await prRun(ws, box(0.85, '590.10'))
    const cell = run.results.cells[0]
    expect(cell.verdict.status).toBe('regression')
    expect(cell.ab).toMatchObject({ status: 'not-run', reason: expect.stringMatching(/^the base launch 1 failed: /) })
    expect(cell.ab?.arms).toHaveLength(1)
    expect(run.report).toMatch(/Same-box A\/B not run for 1 cell: the base launch 1 failed/)
    expect(run.code).toBe(1)
    noWorktreeLeft(ws, run.runnerTemp)
  }, 300_000)

  it('ab-budget: 1s leaves the stored verdict and says the base arm would not fit', async () => {
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: { 'bench.yml': matrix(1, { defaults: ', ab-budget: 1s' }) },
    })
    const run = await prRun(ws, box(0.85, '590.10'))
    const cell = run.results.cells[0]
    expect(cell.verdict.status).toBe('regression')
    expect(cell.ab?.reason).toMatch(/past ab-budget 1s with 0ms spent/)
    expect(run.report).toMatch(/Same-box A\/B not run for 1 cell: the base arm would take about/)
    expect(run.stdout).not.toMatch(/A\/B base launch/)
  }, 300_000)

  it('SIGKILL of the action during a base-arm launch: no engine and no worktree after the post step', async () => {
    const ws = gitWorkspace({
      base: { 'bench.yml': matrix(1), 'profiles/box.json': PROFILE },
      head: { 'README.md': 'b\n' },
    })
    const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
    const env = { ...box(0.85, '590.10'), RUNNER_TEMP: runnerTemp }
    const inputs = { config: 'bench.yml', 'baseline-file': baseline, 'results-dir': 'out' }
    const groups: number[] = []
    const run = await runAction({
      cwd: ws.checkout,
      inputs,
      env,
      event: prEvent(ws.base),
      timeoutMs: 180_000,
      onSpawn: (child) =>
        onceStdout(child, /A\/B base launch 1[\s\S]*launched process group \d+/, () => child.kill('SIGKILL')),
    })
    expect(run.code).toBeNull()
    expect(run.stdout).toMatch(/A\/B base launch 1/)
    for (const m of run.stdout.matchAll(/launched process group (\d+)/g)) groups.push(Number(m[1]))
    expect(groups.length, run.stdout).toBeGreaterThanOrEqual(2)
    // The watchdog saw the pipe close; the post step is the second net.
    const post = await runAction({ cwd: ws.checkout, inputs, env, state: { ...run.state, isPost: 'true' } })
    expect(post.code, post.stdout).toBe(0)
    expect(await until(() => groups.every((g) => psGroup(g).length === 0), 10_000), 'an engine is still running').toBe(
      true,
    )
    expect(await until(() => readdirSync(runnerTemp).every((n) => !n.startsWith('llm-bench-gate-base-')), 10_000)).toBe(
      true,
    )
    noWorktreeLeft(ws, runnerTemp)
  }, 300_000)
})

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(50)) if (check()) return true
  return check()
}
