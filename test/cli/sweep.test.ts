/**
 * A concurrency sweep end to end through the bundled CLI on the simulator (a shipped profile, sped up): `validate`
 * says what the sweep becomes, `run` measures the four `@c<N>` cells as ordinary closed-loop cells, and a second run
 * against the first one's results file writes a leaderboard page whose serving curve has this run's path and the
 * baseline's, each point where the results file's figures put it.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { curveScale } from '../../src/report/serving-curve.js'
import { readResults } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'

const CONCURRENCIES = [1, 2, 4, 8]
const IDS = CONCURRENCIES.map((c) => `small/chat@c${c}`)

// The shipped 0.8B profile with a step that grows 2 ms per extra stream (shipped: 0.09 ms): one user's step is
// 9.44 ms, eight users' 23.35 ms, so per user c1 is 2.5× c8 and the engine's output at c8 3.2× c1 — ends of the curve
// far apart enough that a loaded machine's timer lag cannot swap them. At time-scale 4 a step is 2.4–5.8 ms and a
// round 75–190 ms; at 20 (0.5–1.2 ms steps, 15–40 ms rounds) one 20 ms stall of a loaded runner read c8 as 1.7× c1.
// With the shipped 0.09 ms the ends are 6 % apart per user, within that lag.
const PROFILE = 'sweep-profile.json'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-sweep-'))
  const shipped = JSON.parse(await readFile(new URL('../../profiles/vllm-qwen35-08b.json', import.meta.url), 'utf8'))
  const steep = { ...shipped, name: 'sweep-steep', decode: { 'step-ms': { base: 9.35, 'per-seq': 2 } } }
  delete steep.reproduces
  // Not a GB10 any more, and sped up a 32-token reply arrives in bursts the roofline would refuse
  // (faster than memory bandwidth allows): the curve's shape is what this test reads, not the box.
  delete steep.bandwidth
  delete steep['model-bytes']
  await writeFile(join(cwd, PROFILE), JSON.stringify(steep))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'hardware: cli-sim',
      'defaults: { rounds: 2, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: { questions: 4, prompts: 2 } }',
      'scenarios:',
      '  chat: { input-tokens: 32, output-tokens: 32, concurrency: [8, 1, 4, 2] }',
      'targets:',
      `  small: { engine: sim, profile: ${PROFILE}, time-scale: 4, load-time: 0ms, seed: 3 }`,
      '',
    ].join('\n'),
  )
})

async function results(dir: string): Promise<ResultsFile> {
  return readResults(await readFile(join(cwd, dir, 'results.json'), 'utf8'), dir)
}

const attr = (tag: string, name: string) => Number(new RegExp(`\\s${name}="([^"]*)"`).exec(tag)![1])

/** Per side, the concurrency and SVG coordinates of each point the page drew. */
function drawn(page: string, side: string): { c: number; cx: number; cy: number }[] {
  return [...page.matchAll(new RegExp(`<circle class="point" data-target="small" data-side="${side}"[^>]*>`, 'g'))].map(
    ([tag]) => ({ c: attr(tag, 'data-concurrency'), cx: attr(tag, 'cx'), cy: attr(tag, 'cy') }),
  )
}

describe('a concurrency sweep through the CLI', () => {
  it('validate names the sweep and its four cells', async () => {
    const run = await runCli(['validate', '--config', 'bench.yml'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('chat: concurrency sweep 1, 2, 4, 8 → cells chat@c1 … @c8')
    for (const c of CONCURRENCIES) expect(run.stdout).toContain(`small/chat@c${c}  32 in → 32 out, concurrency ${c}`)
  })

  it('measures one closed-loop cell per concurrency, each at its own concurrency', async () => {
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'first'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    const first = await results('first')
    expect(first.cells.map((c) => [c.id, c.scenario, c.status, c.workload.concurrency, c.workload.requests])).toEqual(
      CONCURRENCIES.map((c, i) => [IDS[i], `chat@c${c}`, 'ok', c, c]),
    )
    for (const cell of first.cells) {
      const m = cell.metrics!
      expect(m.per_user_tps).toBeCloseTo(m.output_tps / cell.workload.concurrency, 6)
      for (const r of cell.rounds) expect(r.requests).toBe(cell.workload.concurrency)
    }
    // The ends of a serving curve: eight users batched get more output from the engine (3.2× by the schedule), and
    // each less (0.4×), than one.
    const [one, eight] = [first.cells[0].metrics!, first.cells[3].metrics!]
    expect(eight.output_tps).toBeGreaterThan(2 * one.output_tps)
    expect(eight.per_user_tps).toBeLessThan(0.7 * one.per_user_tps)
    const page = await readFile(join(cwd, 'first/leaderboard.html'), 'utf8')
    expect(drawn(page, 'current').map((p) => p.c)).toEqual(CONCURRENCIES)
    expect(drawn(page, 'baseline')).toEqual([])
    expect(page).toContain('· no baseline')
  })

  it('draws this run and the baseline on the leaderboard page of a run against the first', async () => {
    const run = await runCli(
      ['run', '--config', 'bench.yml', '--out', 'second', '--baseline-file', 'first/results.json'],
      {
        cwd,
      },
    )
    expect([0, 1], run.stderr).toContain(run.code)
    const [first, second] = [await results('first'), await results('second')]
    const baseline = second.cells.map((c) => c.verdict.reference!['output-throughput']!.value)
    expect(baseline).toEqual(first.cells.map((c) => c.metrics!.output_tps))
    const page = await readFile(join(cwd, 'second/leaderboard.html'), 'utf8')
    expect([...page.matchAll(/<svg class="curve"/g)]).toHaveLength(1)
    expect([...page.matchAll(/<path data-target="small" data-side="(\w+)"/g)].map((m) => m[1])).toEqual([
      'baseline',
      'current',
    ])
    const points = [
      ...second.cells.map((c) => ({ x: c.metrics!.per_user_tps, y: c.metrics!.output_tps })),
      ...baseline.map((y, i) => ({ x: y / CONCURRENCIES[i], y })),
    ]
    const scale = curveScale(Math.max(...points.map((p) => p.x)), Math.max(...points.map((p) => p.y)))
    expect(drawn(page, 'current')).toEqual(
      second.cells.map((c, i) => ({
        c: CONCURRENCIES[i],
        cx: scale.px(c.metrics!.per_user_tps),
        cy: scale.py(c.metrics!.output_tps),
      })),
    )
    expect(drawn(page, 'baseline')).toEqual(
      baseline.map((y, i) => ({ c: CONCURRENCIES[i], cx: scale.px(y / CONCURRENCIES[i]), cy: scale.py(y) })),
    )
    const report = await readFile(join(cwd, 'second/report.md'), 'utf8')
    const rows = report.split('\n').filter((l) => l.includes('| small | chat@'))
    expect(rows.map((l) => /chat@(?:&#8203;)?c(\d+)/.exec(l)![1])).toEqual(CONCURRENCIES.map(String))
  })
})
