/**
 * Creep through the bundled action: a push to main stores the baseline on the data branch of a fake GitHub API; the
 * stored history is then made what sixteen runs at that speed and six merges of −1.5 % each would have left; the
 * next push to main, a seventh −1.5 % merge, passes against the level main is at and fails the step for the creep,
 * the report heading with the span, the results file keeping it.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'

const HISTORY = 'loopback-hw/history.json'
const sha = (i: number) => i.toString(16).padStart(40, '0')

let github: FakeGitHub
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-creep-'))
})
afterAll(async () => {
  await github?.close()
})

/** A push to main measuring a loopback engine that streams a token every `intervalMs`. */
async function mainRun(intervalMs: number, commit: string) {
  const engine = await startScheduledServer({ ttftMs: 100, intervalMs })
  try {
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 10s, request-timeout: 30s, quality: false }',
        'gate:',
        '  decode: { max-regression: 5% }',
        'scenarios:',
        '  short: { input-tokens: 32, output-tokens: 24, concurrency: 2 }',
        'targets:',
        `  loopback: { engine: openai, url: ${engine.url}, model: scheduled }`,
        '',
      ].join('\n'),
    )
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    return await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'github-token': 'test-token', hardware: 'loopback-hw', 'results-dir': 'out' },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
      event: {
        name: 'push',
        ref: 'refs/heads/main',
        sha: commit,
        payload: { ref: 'refs/heads/main', repository },
      },
    })
  } finally {
    await engine.close()
  }
}

describe('creep on the default branch, through the action', () => {
  it('seven merges of −1.5 %: the seventh passes its own comparison and fails the run for the creep', async () => {
    const first = await mainRun(20, sha(99))
    expect(first.code, first.stdout).toBe(0)
    // The history as sixteen runs at the measured level, then six merges 1.5 % slower each (decode only).
    const stored = JSON.parse(github.state.readFile('llm-bench-data', HISTORY)!) as HistoryFile
    const [entry] = stored.entries
    const scaled = (level: number, i: number) => ({
      ...entry,
      sha: sha(i),
      cells: Object.fromEntries(
        Object.entries(entry.cells).map(([id, metrics]) => [
          id,
          Object.fromEntries(
            Object.entries(metrics).map(([key, s]) =>
              key.startsWith('decode_tps')
                ? [key, { steady: s.steady * level, rounds: s.rounds.map((r) => r * level) }]
                : [key, s],
            ),
          ),
        ]),
      ),
    })
    const levels = [...Array<number>(16).fill(1), 0.985, 0.97, 0.955, 0.94, 0.925, 0.91]
    const history: HistoryFile = { ...stored, entries: levels.map(scaled) }
    github.state.writeFile('llm-bench-data', HISTORY, JSON.stringify(history))

    // A token every 20 ms / 0.895: the seventh merge, 4.8 % below the median of main's newest five runs.
    const run = await mainRun(20 / 0.895, sha(100))
    const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
    const [cell] = results.cells
    const creep = cell.verdict.creep
    expect(
      creep?.map((a) => [a.metric, a.merges, a.since]),
      run.stdout,
    ).toEqual([['decode', 7, sha(15)]])
    expect(creep![0].change).toBeLessThan(-0.05)
    expect(run.code, run.stdout).toBe(1)
    expect(run.outputs.verdict).toBe('regression')
    const report = await readFile(join(cwd, 'out', 'report.md'), 'utf8')
    expect(report).toContain('Creep on the default branch')
    // The per-run comparison found main's level moved inside the creep and rebased onto it; the creep did not.
    expect(report).toMatch(/decode tok\/s −\d+\.\d% over 7 merges since 0000000, each within the limit/)
    if (cell.verdict.status !== 'regression') {
      expect(results.summary?.crept).toBe(1)
      expect(run.stdout).toContain('crept past the limit over several default-branch runs')
    }
  }, 120_000)
})
