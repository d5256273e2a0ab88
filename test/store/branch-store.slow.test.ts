import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GateConfig } from '../../src/core/plan.js'
import { timedInLoop } from '../helpers/lag-trace.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { branchStore, StoreError, type BranchStoreOptions, type MergedUpdate } from '../../src/store/index.js'
import { HISTORY_SCHEMA, type HistoryFile, type ResultsFile } from '../../src/core/results.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { boundedGitHub } from '../../src/core/github-port.js'
import { storedCell, storedResults } from '../helpers/builders.js'
import { workloadDigest } from '../../src/core/workload.js'
import { branchPages } from '../../src/run/pages.js'

const BRANCH = 'llm-bench-data'
const gates: Record<string, GateConfig> = { t: { decode: { maxRegression: 0.05, stat: 'p50' } } }
const fast = { decode: 50, ttft: 300 }
const slow = { decode: 40, ttft: 400 }

let gh: FakeGitHub
beforeEach(async () => {
  gh = await startFakeGitHub()
})
afterEach(async () => {
  await gh.close()
})

const github = () => ({
  request: getOctokit('test-token', { baseUrl: gh.url }).request,
  repo: { owner: gh.state.owner, repo: gh.state.repo },
})

/** A branch store whose saves write the pages a run gives them (run/pages.ts): the dashboard and the root index. */
function store(options: Partial<BranchStoreOptions> = {}) {
  const log = memoryLogger()
  const raw = branchStore({ ...github(), branch: BRANCH, log, backoffMs: 1, ...options })
  const save: typeof raw.save = (hardware, results, g, pages = branchPages(rulesOf(g), undefined)) =>
    raw.save(hardware, results, g, pages)
  return { log, store: { ...raw, save } }
}
const rulesOf = (g: Record<string, GateConfig>) =>
  Object.fromEntries(Object.entries(g).map(([target, gate]) => [target, { gate }]))

const stored = <T>(path: string): T => JSON.parse(gh.state.readFile(BRANCH, path) ?? 'null') as T
const refUpdates = () =>
  gh.state.log.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/git/refs/heads/${BRANCH}`))
const FOUR = ['cpu/baseline.json', 'cpu/history.json', 'cpu/index.html', 'index.html']
/** Paths a commit adds or changes against its first parent. */
function changedPaths(sha: string): string[] {
  const commit = gh.state.commits.get(sha)!
  const before = commit.parents.length ? gh.state.files(commit.parents[0]) : new Map<string, string>()
  return [...gh.state.files(sha)]
    .filter(([path, blob]) => before.get(path) !== blob)
    .map(([path]) => path)
    .sort()
}
const day = (d: number) => `2025-02-${String(d).padStart(2, '0')}T10:00:00Z`

describe('branchStore', () => {
  it('load on a repository without the data branch is an empty view, not an error', async () => {
    const { store: s } = store()
    await expect(s.load('cpu')).resolves.toEqual({ view: { history: [] } })
    expect(gh.state.head(BRANCH)).toBeUndefined()
    expect(gh.state.log.filter((r) => r.path.includes('/contents/')).map((r) => r.status)).toEqual([404, 404])
  })

  it('creates the data branch as an orphan on the first save, then writes baseline and history', async () => {
    const { store: s } = store()
    const run = storedResults('1111111aaa', day(1), [storedCell('t/chat', [fast, slow])])
    await s.save('cpu', run, gates)

    const created = gh.state.log.find((r) => r.method === 'POST' && r.path.endsWith('/git/refs'))!
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ ref: `refs/heads/${BRANCH}` })
    const orphan = gh.state.commits.get((created.body as { sha: string }).sha)!
    expect(orphan.parents).toEqual([])
    expect(gh.state.files(orphan.sha).has('README.md')).toBe(true)
    // One commit on top of the orphan carries all four files, and the default branch was not touched.
    const head = gh.state.commits.get(gh.state.head(BRANCH)!)!
    expect(head.parents).toEqual([orphan.sha])
    expect(changedPaths(head.sha)).toEqual(FOUR)
    expect(gh.state.log.filter((r) => r.method === 'PUT')).toEqual([])
    expect(gh.state.readFile('main', 'cpu/baseline.json')).toBeUndefined()

    expect(stored<ResultsFile>('cpu/baseline.json').cells.map((c) => c.id)).toEqual(['t/chat'])
    const history = stored<HistoryFile>('cpu/history.json')
    expect(history).toMatchObject({ schema: HISTORY_SCHEMA, hardware: 'cpu' })
    expect(history.entries).toEqual([
      {
        sha: '1111111aaa',
        date: day(1),
        runUrl: 'https://example.test/runs/1111111aaa',
        cells: {
          't/chat': {
            'decode_tps.mean': { steady: 45, rounds: [50, 40] },
            'decode_tps.p50': { steady: 46, rounds: [51, 41] },
            'ttft_ms.mean': { steady: 350, rounds: [300, 400] },
          },
        },
        // What the cell measured, so that a run of another workload under the same id is not compared with it.
        workloads: { 't/chat': workloadDigest(stored<ResultsFile>('cpu/baseline.json').cells[0].workload) },
      },
    ])
  })

  it('reads back what it saved, with where it came from', async () => {
    const { store: s } = store()
    const run = storedResults('2222222bbb', day(2), [storedCell('t/chat', [fast])])
    await s.save('nvidia-gb10', run, gates)
    const loaded = await store().store.load('nvidia-gb10')
    expect(loaded.view.results).toEqual(run)
    expect(loaded.view.history.map((e) => e.sha)).toEqual(['2222222bbb'])
    expect(loaded.ref).toEqual({
      sha: '2222222bbb',
      hardware: 'nvidia-gb10',
      source: `branch ${BRANCH}`,
      runUrl: run.run.runUrl,
      date: day(2),
      samples: 1,
    })
    // Another hardware key has nothing stored.
    await expect(s.load('cpu')).resolves.toEqual({ view: { history: [] } })
  })

  it('keeps a bounded history, newest last, with one entry per sha', async () => {
    const { store: s } = store({ historyLimit: 3 })
    for (let d = 1; d <= 5; d++)
      await s.save(
        'cpu',
        storedResults(`sha${d}`, day(d), [storedCell('t/chat', [{ decode: 10 * d, ttft: 100 }])]),
        gates,
      )
    // Re-running sha5 replaces its entry instead of adding one.
    await s.save('cpu', storedResults('sha5', day(6), [storedCell('t/chat', [{ decode: 99, ttft: 100 }])]), gates)
    const history = stored<HistoryFile>('cpu/history.json').entries
    expect(history.map((e) => e.sha)).toEqual(['sha3', 'sha4', 'sha5'])
    expect(history.map((e) => e.cells['t/chat']['decode_tps.mean'].steady)).toEqual([30, 40, 99])
    // The same run saved twice writes nothing the second time.
    const before = gh.state.head(BRANCH)
    await s.save('cpu', storedResults('sha5', day(6), [storedCell('t/chat', [{ decode: 99, ttft: 100 }])]), gates)
    expect(gh.state.head(BRANCH)).toBe(before)
  })

  // These replace the contents-API tests (a 409 or 422 per file PUT): an update is now one commit, and a
  // conflict is the ref update failing to fast-forward because another writer moved the branch.
  it('one commit per update: each carries all four files on top of the previous head', async () => {
    const { store: s } = store()
    for (let d = 1; d <= 3; d++) {
      const before = gh.state.head(BRANCH)
      await s.save(
        'cpu',
        storedResults(`sha${d}`, day(d), [storedCell('t/chat', [{ decode: 10 * d, ttft: 100 }])]),
        gates,
      )
      const head = gh.state.commits.get(gh.state.head(BRANCH)!)!
      if (before) expect(head.parents).toEqual([before])
      expect(changedPaths(head.sha)).toEqual(FOUR)
    }
    expect(refUpdates().map((r) => [r.status, (r.body as { force: boolean }).force])).toEqual([
      [200, false],
      [200, false],
      [200, false],
    ])
    expect(gh.state.readFile(BRANCH, 'cpu/index.html')).toContain('LLM serving dashboard · cpu')
    expect(gh.state.readFile(BRANCH, 'index.html')).toContain('href="cpu/index.html"')
  })

  it('re-reads and merges when the branch moved: two conflicts, then the commit keeps both writers’ cells', async () => {
    const { store: s, log } = store()
    await s.save(
      'cpu',
      storedResults('base', day(1), [storedCell('t/shared', [slow]), storedCell('t/first', [slow])]),
      gates,
    )
    await store().store.save('gpu', storedResults('gpu1', day(1), [storedCell('t/g', [slow])]), gates)
    let competing = 0
    // Before the first ref update another job commits its own cells; before the second, an unrelated file.
    gh.inject.beforeRefUpdates(2, () => {
      if (competing++ === 0) {
        const other = storedResults('other', day(2), [
          storedCell('t/shared', [slow]),
          storedCell('t/first', [slow]),
          storedCell('u/other', [slow]),
        ])
        gh.state.writeFile(BRANCH, 'cpu/baseline.json', JSON.stringify(other))
      } else gh.state.writeFile(BRANCH, 'notes.txt', 'a note')
    })
    await s.save(
      'cpu',
      storedResults('mine', day(3), [storedCell('t/shared', [fast]), storedCell('t/mine', [fast])]),
      gates,
    )

    expect(
      refUpdates()
        .slice(-3)
        .map((r) => r.status),
    ).toEqual([422, 422, 200])
    const baseline = stored<ResultsFile>('cpu/baseline.json')
    expect(baseline.run.sha).toBe('mine')
    expect(baseline.cells.map((c) => c.id).sort()).toEqual(['t/first', 't/mine', 't/shared', 'u/other'])
    expect(baseline.cells.find((c) => c.id === 't/shared')!.metrics!.decode_tps.mean).toBe(fast.decode)
    // Nothing the other writers committed was lost, and the root page lists both hardware keys.
    expect(gh.state.readFile(BRANCH, 'notes.txt')).toBe('a note')
    expect(gh.state.readFile(BRANCH, 'index.html')).toContain('href="gpu/index.html"')
    expect(log.lines.filter((l) => l.includes('HTTP 422'))).toHaveLength(2)
  })

  it('gives up after maxRetries conflicts with an error naming the branch, leaving it as the other writer left it', async () => {
    const { store: s } = store({ maxRetries: 3 })
    await s.save('cpu', storedResults('base', day(1), [storedCell('t/a', [slow])]), gates)
    let n = 0
    gh.inject.beforeRefUpdates(1000, () => gh.state.writeFile(BRANCH, 'notes.txt', `note ${n++}`))
    const error = await s
      .save('cpu', storedResults('next', day(2), [storedCell('t/a', [fast])]), gates)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError)
    expect(error).toMatchObject({
      status: 422,
      message: expect.stringContaining(`${BRANCH}: still conflicting after 4 attempts`),
    })
    expect(refUpdates().filter((r) => r.status === 422)).toHaveLength(4)
    expect(stored<ResultsFile>('cpu/baseline.json').run.sha).toBe('base')
  })

  it('conflict retries stay inside the write operation’s deadline, the backoff wait cut short by it', async () => {
    const octokit = getOctokit('test-token', { baseUrl: gh.url })
    const repo = { owner: gh.state.owner, repo: gh.state.repo }
    const { store: setup } = store()
    await setup.save('cpu', storedResults('base', day(1), [storedCell('t/a', [slow])]), gates)
    let n = 0
    gh.inject.beforeRefUpdates(1000, () => gh.state.writeFile(BRANCH, 'notes.txt', `note ${n++}`))
    // Without the deadline: 20 retries of 2 s × 2^attempt backoff (capped at 30 s) would take minutes.
    const api = boundedGitHub({ request: octokit.request, repo }, undefined, { requestMs: 5000, operationMs: 800 })
    const timed = await timedInLoop(() =>
      api
        .operation('the baseline write', (o) =>
          branchStore({ ...o, branch: BRANCH, log: memoryLogger(), maxRetries: 20, backoffMs: 2000 }).save(
            'cpu',
            storedResults('next', day(2), [storedCell('t/a', [fast])]),
            gates,
          ),
        )
        .catch((e: unknown) => e),
    )
    expect((timed.value as Error).message).toMatch(/the baseline write took longer than 800ms/)
    // A timer may fire up to 1 ms early on the loop's whole-millisecond clock; the fake GitHub answers in this loop.
    expect(timed.elapsed).toBeGreaterThanOrEqual(799)
    expect(timed.elapsed).toBeLessThanOrEqual(timed.bound(800))
    // The deadline fell in the first backoff wait (2 to 3 s), which ended with it: one conflict, no second try.
    expect(refUpdates().filter((r) => r.status === 422).length).toBeLessThanOrEqual(1)
    expect(stored<ResultsFile>('cpu/baseline.json').run.sha).toBe('base')
  })

  it('does not retry other errors and keeps their status', async () => {
    const { store: s } = store()
    await s.save('cpu', storedResults('base', day(1), [storedCell('t/a', [slow])]), gates)
    gh.state.refs.delete(`refs/heads/${BRANCH}`) // deleted behind the store's back: reading the head answers 404
    const error = await s
      .save('cpu', storedResults('next', day(2), [storedCell('t/a', [fast])]), gates)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'StoreError', status: 404 })
    expect(refUpdates()).toHaveLength(1)
  })

  it('bounds history by bytes too, dropping the oldest runs', async () => {
    const { store: s } = store({ historyBytes: 1500 })
    for (let d = 1; d <= 6; d++)
      await s.save(
        'cpu',
        storedResults(`sha${d}`, day(d), [storedCell('t/chat', [{ decode: 10 * d, ttft: 100 }])]),
        gates,
      )
    const text = gh.state.readFile(BRANCH, 'cpu/history.json')!
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1500)
    const shas = stored<HistoryFile>('cpu/history.json').entries.map((e) => e.sha)
    expect(shas.at(-1)).toBe('sha6')
    expect(shas.length).toBeLessThan(6)
    // One run per line: compact, and still a history file the store reads back.
    expect(text.split('\n').filter((l) => l.startsWith('{"sha"'))).toHaveLength(shas.length)
    expect((await s.load('cpu')).view.history.map((e) => e.sha)).toEqual(shas)
  })

  it('reads files over the contents API size limit through the git blob API', async () => {
    await gh.close()
    gh = await startFakeGitHub({ largeFileBytes: 2000 })
    const { store: s } = store()
    const run = storedResults('big', day(1), [storedCell('t/a', [fast]), storedCell('t/b', [slow])])
    await s.save('cpu', run, gates)
    expect(gh.state.readFile(BRANCH, 'cpu/baseline.json')!.length).toBeGreaterThan(2000)
    const loaded = await s.load('cpu')
    expect(loaded.view.results).toEqual(run)
    const blobReads = gh.state.log.filter((r) => r.method === 'GET' && r.path.includes('/git/blobs/'))
    expect(blobReads.length).toBeGreaterThanOrEqual(1)
  })

  it('stores only healthy measured cells and skips the write when there are none', async () => {
    const { store: s, log } = store()
    const broken = storedCell('t/broken', [fast], { status: 'error', error: 'exit 1', metrics: null })
    await s.save('cpu', storedResults('e', day(1), [broken]), gates)
    expect(gh.state.head(BRANCH)).toBeUndefined()
    expect(log.lines.some((l) => l.includes('no healthy cells'))).toBe(true)
    await s.save('cpu', storedResults('f', day(2), [broken, storedCell('t/ok', [fast])]), gates)
    expect(stored<ResultsFile>('cpu/baseline.json').cells.map((c) => c.id)).toEqual(['t/ok'])
  })

  it('rejects a corrupt stored file with a message naming it', async () => {
    const { store: s } = store()
    await s.save('cpu', storedResults('a', day(1), [storedCell('t/a', [fast])]), gates)
    gh.state.writeFile(BRANCH, 'cpu/baseline.json', '{"schema":"something-else"}')
    await expect(s.load('cpu')).rejects.toThrow(
      `${BRANCH}:cpu/baseline.json: not a llm-bench-gate results file: schema is "something-else"`,
    )
  })

  it('never commits a file that would not read back: the error names the file and the field', async () => {
    const { store: s } = store()
    await s.save('cpu', storedResults('a', day(1), [storedCell('t/a', [fast])]), gates)
    const head = gh.state.head(BRANCH)
    const bad = storedCell('t/b', [fast])
    bad.rounds[1].durationMs = Number.NaN
    await expect(s.save('cpu', storedResults('b', day(2), [bad]), gates)).rejects.toThrow(
      `${BRANCH}:cpu/baseline.json: not written, it would not read back: cells[0].rounds[1].durationMs: expected a number, got null`,
    )
    expect(gh.state.head(BRANCH)).toBe(head)
  })

  it("a run that writes the baseline replaces its own key's unreadable files, warning; a run that compares fails closed", async () => {
    const { store: s } = store()
    await s.save('cpu', storedResults('a', day(1), [storedCell('t/a', [fast]), storedCell('t/b', [slow])]), gates)
    await s.save('cpu', storedResults('b', day(2), [storedCell('t/a', [fast]), storedCell('t/b', [slow])]), gates)
    // An older writer left a null where a number belongs: in one cell of the baseline, in one entry of the history.
    const baseline = stored<ResultsFile>('cpu/baseline.json')
    ;(baseline.cells[0].rounds[1] as { durationMs: unknown }).durationMs = null
    gh.state.writeFile(BRANCH, 'cpu/baseline.json', JSON.stringify(baseline))
    const history = stored<HistoryFile>('cpu/history.json')
    ;(history.entries[0].cells['t/a']['decode_tps.mean'] as { steady: unknown }).steady = null
    gh.state.writeFile(BRANCH, 'cpu/history.json', JSON.stringify(history))
    const nullBase = 'cells[0].rounds[1].durationMs: expected a number, got null'
    const nullHist = 'entries[0].cells["t/a"]["decode_tps.mean"].steady: expected a number, got null'

    await expect(s.load('cpu')).rejects.toThrow(nullBase)
    const writer = store({ replaceUnreadable: true })
    const loaded = await writer.store.load('cpu')
    expect(loaded.view.results?.cells.map((c) => c.id)).toEqual(['t/b'])
    expect(loaded.view.history.map((e) => e.sha)).toEqual(['b'])
    const warnings = writer.log.lines.filter((l) => l.includes('does not read'))
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain(
      `${BRANCH}:cpu/baseline.json does not read (${BRANCH}:cpu/baseline.json: ${nullBase})`,
    )
    expect(warnings[0]).toContain('replaces the file, keeping the 1 of its 2 cells that read')
    expect(warnings[1]).toContain(nullHist)
    expect(warnings[1]).toContain('keeping the 1 of its 2 entries that read')

    // The save of such a run replaces them (a save is only ever a run that writes the baseline).
    const { store: saver, log } = store()
    await saver.save('cpu', storedResults('c', day(3), [storedCell('t/c', [fast])]), gates)
    expect(log.lines.filter((l) => l.includes('does not read'))).toHaveLength(2)
    const after = await s.load('cpu')
    expect(after.view.results?.cells.map((c) => c.id).sort()).toEqual(['t/b', 't/c'])
    expect(after.view.history.map((e) => e.sha)).toEqual(['b', 'c'])
  })

  it('a file that is not JSON at all is replaced whole', async () => {
    const { store: s } = store()
    await s.save('cpu', storedResults('a', day(1), [storedCell('t/a', [fast])]), gates)
    gh.state.writeFile(BRANCH, 'cpu/baseline.json', '{"schema":')
    const writer = store({ replaceUnreadable: true })
    expect((await writer.store.load('cpu')).view.results).toBeUndefined()
    expect(writer.log.lines.some((l) => l.includes('not valid JSON') && l.includes('nothing of it reads'))).toBe(true)
    await writer.store.save('cpu', storedResults('b', day(2), [storedCell('t/b', [fast])]), gates)
    expect(stored<ResultsFile>('cpu/baseline.json').cells.map((c) => c.id)).toEqual(['t/b'])
  })

  it('writes the pages its caller builds from the merged files, none without, and never a page over the data', async () => {
    const { store: s } = store()
    const raw = branchStore({ ...github(), branch: BRANCH, log: memoryLogger(), backoffMs: 1 })
    await raw.save('cpu', storedResults('a', day(1), [storedCell('t/a', [fast])]), gates)
    expect(changedPaths(gh.state.head(BRANCH)!)).toEqual(['cpu/baseline.json', 'cpu/history.json'])
    await s.save('gpu', storedResults('g', day(1), [storedCell('t/g', [slow])]), gates)
    // The pages see this update's merge and every key with a baseline on the branch.
    let seen: MergedUpdate | undefined
    const pages = (merged: MergedUpdate) => ((seen = merged), { 'cpu/notes.html': `${merged.history.length} runs` })
    await raw.save('cpu', storedResults('b', day(2), [storedCell('t/b', [fast])]), gates, pages)
    expect(changedPaths(gh.state.head(BRANCH)!)).toEqual(['cpu/baseline.json', 'cpu/history.json', 'cpu/notes.html'])
    expect(gh.state.readFile(BRANCH, 'cpu/notes.html')).toBe('2 runs')
    expect(seen?.baseline.cells.map((c) => c.id).sort()).toEqual(['t/a', 't/b'])
    expect(seen?.keys.map((k) => [k.hardware, k.sha, k.cells])).toEqual([
      ['cpu', 'b', 2],
      ['gpu', 'g', 1],
    ])
    const head = gh.state.head(BRANCH)
    for (const path of ['cpu/baseline.json', '../index.html', 'cpu/notes.txt'])
      await expect(
        raw.save('cpu', storedResults('c', day(3), [storedCell('t/c', [fast])]), gates, () => ({ [path]: 'x' })),
      ).rejects.toThrow(`store: ${BRANCH}:${path} is not a page the store writes`)
    expect(gh.state.head(BRANCH)).toBe(head)
  })

  it.each(['', '../x', 'a/b', '.hidden'])('refuses hardware key %j as a path', async (key) => {
    await expect(store().store.load(key)).rejects.toThrow('must be a slug')
  })
})
