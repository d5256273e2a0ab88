/**
 * The dashboard marks the level shifts the verdict sees: a default-branch run of the bundled action over a stored
 * history whose decode steps up 10 % after four runs, for two targets on one engine. With the built-in 1.5 %
 * `noise-floor` the step is past three times the floor and past the 5 % limit, so the verdict's reference moves
 * to the new level (`rebased` at the step's first run) and the charts mark the shift there; with `noise-floor: 5%`
 * the step is within three times the floor, so the verdict compares with the median of the newest runs and neither
 * the data branch's page nor the page written next to the results marks a shift. Rounds agree within each run and
 * both levels hold their runs exactly, so the history's measured spread is zero and the floor alone decides
 * (compare/reference.ts).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HISTORY_SCHEMA, type HistoryEntry, type HistoryFile, type ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'

const BRANCH = 'llm-bench-data'
const HW = 'hw'
const CELLS = ['narrow/short', 'wide/short']
/** Four runs at 60 tok/s, then two at 66: the step starts at index 4. */
const LEVELS = [60, 60, 60, 60, 66, 66]
const STEP_AT = 4
const sha = (i: number) => String.fromCharCode(97 + i).repeat(40)

let github: FakeGitHub
let engine: ScheduledServer
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  engine = await startScheduledServer({ ttftMs: 30, intervalMs: 15 })
  cwd = await mkdtemp(join(tmpdir(), 'lbg-shifts-'))
})
afterAll(async () => {
  await Promise.all([github?.close(), engine?.close()])
})

function seedHistory(): void {
  const entries: HistoryEntry[] = LEVELS.map((decode, i) => ({
    sha: sha(i),
    date: `2025-02-0${i + 1}T10:00:00Z`,
    runUrl: `https://example.test/runs/${i}`,
    cells: Object.fromEntries(
      CELLS.map((id) => [id, { 'decode_tps.mean': { steady: decode, rounds: [decode, decode] } }]),
    ),
  }))
  const history: HistoryFile = { schema: HISTORY_SCHEMA, hardware: HW, entries }
  const orphan = github.state.putCommit(github.state.putTree(new Map()), [], 'data branch')
  github.state.refs.set(`refs/heads/${BRANCH}`, orphan)
  github.state.writeFile(BRANCH, `${HW}/history.json`, JSON.stringify(history))
}

/** The history indexes a page's decode chart of `id` marks as level shifts. */
function decodeShifts(page: string, id: string): number[] {
  const cards = page.split('<section class="cell"').slice(1)
  const card = cards.find((s) => s.slice(0, s.indexOf('>')).includes(`data-id="${id}"`))
  const shifts = card && /data-shifts="([^"]*)" data-cell="\d+" data-metric="0"/.exec(card)
  if (!shifts) throw new Error(`no decode chart for ${id}`)
  return shifts[1] ? shifts[1].split(',').map(Number) : []
}

describe('level shifts on the dashboard', () => {
  it("mark where the verdict's reference moved, under each target's noise-floor", async () => {
    seedHistory()
    const config = [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, confirm: 0, quality: false }',
      'scenarios:',
      '  short: { input-tokens: 16, output-tokens: 8, concurrency: 1 }',
      'targets:',
      `  narrow: { engine: openai, url: ${engine.url}, model: scheduled }`,
      `  wide: { engine: openai, url: ${engine.url}, model: scheduled, noise-floor: 5% }`,
      '',
    ]
    await writeFile(join(cwd, 'bench.yml'), config.join('\n'))
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    const run = await runAction({
      cwd,
      // What this run measured does not matter here, only where main's level is: it may pass or regress.
      inputs: {
        config: 'bench.yml',
        'github-token': 'test-token',
        hardware: HW,
        'results-dir': 'out',
        'fail-on-regression': 'false',
      },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
      event: {
        name: 'push',
        ref: 'refs/heads/main',
        sha: '9'.repeat(40),
        payload: { ref: 'refs/heads/main', repository },
      },
      timeoutMs: 90_000,
    })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
    const decode = (id: string) => results.cells.find((c) => c.id === id)!.verdict.metrics.decode!
    // The verdict: the default floor takes the step as main's new level, 5 % does not.
    expect(decode('narrow/short').rebased).toMatchObject({ sha: sha(STEP_AT), runs: 2 })
    expect(decode('wide/short').rebased).toBeUndefined()

    const branchPage = github.state.readFile(BRANCH, `${HW}/index.html`)!
    const localPage = await readFile(join(cwd, 'out', 'dashboard', 'index.html'), 'utf8')
    for (const page of [branchPage, localPage]) {
      expect(page).toContain(`Trends over ${LEVELS.length + 1} default-branch runs`)
      expect(decodeShifts(page, 'narrow/short')).toEqual([STEP_AT])
      expect(decodeShifts(page, 'wide/short')).toEqual([])
    }
  }, 120_000)
})
