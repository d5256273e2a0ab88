/**
 * The box around a sim cell's steady rounds, with real processes: a busy process that is not this run's (eight threads
 * spinning, orphaned so that no process of ours is its parent) runs through the rounds and is named in each steady
 * round's host state, in the cell's `verdict.disturbed`, and in the report's verdict line next to a pass that is
 * therefore not clean; this test's process and the simulator, ours, are never named. The results file with the new
 * fields reads back.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import { cellJudge } from '../../src/compare/index.js'
import type { CellResult } from '../../src/core/results.js'
import { busyText } from '../../src/core/round-host.js'
import { renderReport } from '../../src/report/index.js'
import { runTarget } from '../../src/target-run/run-target.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { readProblems, resultsFile } from '../helpers/builders.js'
import { isGone, killGroupQuietly } from '../server/procs.js'

// No bundle in unit tests: the sim adapter launches the CLI from source (as test/sim/adapter.slow.test.ts does).
vi.mock('../../src/io/cli-entry.js', () => ({
  cliEntry: () => new URL('../sim/run-sim-cli.ts', import.meta.url).pathname,
}))

/**
 * The share of a core from which the spinner disturbs a round here. The rule's own, 50 % (test/host/disturbance.test.ts
 * holds it), needs the spinner to get more than half a core, and CFS gives each session an equal share of the CPUs
 * (autogroup, sched(7)): with ten sessions busy on two CPUs, as on a shared development box, it gets about 0.3.
 */
const BUSY = 0.1

const spawned: number[] = []
const busy: number[] = []
afterEach(() => {
  for (const pgid of spawned.splice(0)) killGroupQuietly(pgid)
  for (const pid of busy.splice(0)) killGroupQuietly(pid)
  vi.unstubAllEnvs()
})

/**
 * A node process spinning on eight threads, started by a shell that exits at once: its parent is no longer any
 * process of ours, as a co-tenant's is not. It leads its own group (setsid), so it is killed by its pid.
 */
function startBusyProcess(): number {
  const spin =
    "const { Worker } = require('node:worker_threads'); for (let i = 0; i < 7; i++) new Worker('for (;;) {}', { eval: true }); for (;;) {}"
  const script = `setsid ${JSON.stringify(process.execPath)} -e ${JSON.stringify(spin)} </dev/null >/dev/null 2>&1 & echo $!`
  const pid = Number(execFileSync('sh', ['-c', script], { encoding: 'utf8' }).trim())
  busy.push(pid)
  return pid
}

function plan() {
  return buildPlan(
    {
      version: 1,
      defaults: { rounds: 3, discard: 1, 'ready-timeout': '60s', 'request-timeout': '30s', quality: false, confirm: 0 },
      scenarios: { chat: { 'input-tokens': 64, 'output-tokens': 160, concurrency: 2, requests: 4 } },
      targets: { sim: { engine: 'sim', profile: 'vllm-qwen35-08b', 'time-scale': 2 } },
    },
    { configPath: 'bench.yml', resolvedPath: '/dev/null' },
  )
}

describe('the box during a sim cell', () => {
  it('names a busy process that is not ours in the round, the verdict and the report; never ours', async () => {
    vi.stubEnv('NODE_OPTIONS', '--import tsx')
    const p = plan()
    const log = memoryLogger()
    const pid = startBusyProcess()
    // Spinning before the first round starts.
    await delay(300)
    expect(isGone(pid)).toBe(false)
    const [cell] = await runTarget(p.targets[0], p.cells, {
      log,
      logDir: await mkdtemp(join(tmpdir(), 'lbg-box-')),
      signal: new AbortController().signal,
      seed: 1,
      onSpawn: (pgid) => spawned.push(pgid),
      host: { busyCores: BUSY },
    })
    killGroupQuietly(pid)
    expect(cell.status, cell.error ?? '').toBe('ok')

    // The discarded round is not watched; each steady round records the box.
    expect(cell.rounds[0].host).toBeUndefined()
    const steady = cell.rounds.filter((r) => r.steady)
    expect(steady).toHaveLength(2)
    const named = `node (pid ${pid}) used`
    for (const r of steady) {
      const host = r.host!
      expect(host.uptimeS).toBeGreaterThan(0)
      expect(host.launchAgeMs).toBeGreaterThan(0)
      expect(host.attached).toBeUndefined()
      expect(host.memory!.minBytes).toBeLessThanOrEqual(host.memory!.beforeBytes)
      expect(host.cpu!.cores).toBeGreaterThan(0)
      // Ours — this process, the simulator's group, this process's children — are never among the others.
      const others = host.cpu!.top.map((t) => t.pid)
      expect(others).not.toContain(process.pid)
      for (const group of spawned) expect(others).not.toContain(group)
      // The busy process is among the busiest others (a shared box may have more), and named as what disturbed the round.
      const spun = host.cpu!.top.find((t) => t.pid === pid)
      expect(spun).toEqual({ pid, comm: 'node', cores: expect.any(Number) })
      const why = `the busy process got ${spun!.cores} of a core (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs)`
      expect(host.disturbed ?? [], why).toContainEqual(expect.stringContaining(named))
    }
    expect(steady[1].host!.launchAgeMs).toBeGreaterThan(steady[0].host!.launchAgeMs!)
    // Busy through both steady rounds: one entry, with the rounds and the busier round's figure.
    const cores = Math.max(...steady.map((r) => r.host!.cpu!.top.find((t) => t.pid === pid)!.cores))
    expect(cell.verdict.disturbed).toContain(`rounds 2–3, at worst: ${busyText({ pid, comm: 'node', cores })}`)
    // A warning (an annotation in the action) says so.
    expect(log.lines.join('\n')).toMatch(
      new RegExp(`sim/chat: new reached while the box was disturbed: .*rounds 2–3, at worst: node \\(pid ${pid}\\)`),
    )

    // Judged against a baseline with the same figures, the cell passes, and its verdict says the pass is not clean.
    const judged = judgedAgainstItself(cell, p.targets)
    expect(judged.verdict.status).toBe('pass')
    expect(judged.verdict.disturbed).toEqual(cell.verdict.disturbed)
    const results = {
      ...resultsFile([judged]),
      summary: { verdict: 'pass' as const, regressions: 0, counts: { pass: 1 } },
    }
    const report = renderReport(results, { configPath: 'bench.yml', mode: 'compare' }, 1024 * 1024)
    expect(report).toMatch(
      new RegExp(
        `- ✅ \\*\\*sim/chat\\*\\*: .*⚠️ box disturbed, not a clean pass: .*rounds 2–3, at worst: node \\(pid ${pid}\\) used`,
      ),
    )
    expect(report).toContain('✅ pass · ⚠️ box disturbed')
    expect(report).toMatch(
      /\[!WARNING\]\n> The box was disturbed during the rounds of 1 cell: .* 1 pass among them is not clean\./,
    )

    // The results file with `rounds[].host` and `verdict.disturbed` reads back.
    expect(readProblems(JSON.stringify(results), 'results.json')).toEqual([])
  }, 120_000)
})

/** The cell judged by a baseline that measured the same figures on a quiet box. */
function judgedAgainstItself(cell: CellResult, targets: ReturnType<typeof plan>['targets']): CellResult {
  const quiet: CellResult = {
    ...cell,
    rounds: cell.rounds.map(({ host: _host, ...r }) => r),
    verdict: { status: 'new', metrics: {} },
  }
  const judge = cellJudge({ results: resultsFile([quiet]), history: [] }, targets)
  return judge.decide({ read: cell })
}
