import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { httpStatus, type GitHubRequest, type RepoRef } from '../../src/core/github-port.js'
import {
  closeRecoveredEpisodes,
  pullOfCommit,
  REGRESSION_LABEL,
  upsertEpisodeIssue,
  type Episode,
  type RunLevels,
} from '../../src/run/regression-issue.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

let gh: FakeGitHub
let request: GitHubRequest
let repo: RepoRef

beforeEach(async () => {
  gh = await startFakeGitHub()
  request = getOctokit('tok', { baseUrl: gh.url }).request
  repo = { owner: gh.state.owner, repo: gh.state.repo }
})
afterEach(async () => {
  await gh.close()
})

const SHA = 'c0ffee1234567890c0ffee1234567890c0ffee12'
const RUN_URL = 'https://github.com/octo-org/octo-repo/actions/runs/77'

function episode(overrides: Partial<Episode> = {}): Episode {
  return {
    hardware: 'nvidia-gb10',
    cells: ['vllm/chat', 'sglang/chat'],
    title: 'Decode regressed on nvidia-gb10 at abc1234',
    body: 'Culprit: `abc1234`',
    before: {
      'vllm/chat': { decode: { value: 100, higher: true, limit: 0.05 } },
      'sglang/chat': {
        decode: { value: 80, higher: true, limit: 0.05 },
        ttft: { value: 200, higher: false, limit: 0.1 },
      },
    },
    ...overrides,
  }
}

function run(cells: RunLevels['cells']): RunLevels {
  return { sha: SHA, runUrl: RUN_URL, cells }
}

const writes = () => gh.state.log.filter((r) => r.method !== 'GET')
const openIssues = () => gh.state.issues.filter((i) => i.state === 'open')

/** The levels of `episode()`: a marker holding them and its cells would be that episode's. */
const LEVELS = episode().before

function marker(before: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const doc = { hardware: 'nvidia-gb10', cells: ['sglang/chat', 'vllm/chat'], before, ...extra }
  return `<!-- ${REGRESSION_LABEL} ${JSON.stringify(doc)} -->`
}

describe('upsertEpisodeIssue', () => {
  it('creates one labelled issue, updates it in place, and writes nothing when unchanged', async () => {
    const first = await upsertEpisodeIssue(request, repo, episode())
    expect(first).toEqual({ action: 'created', number: 100, url: `${gh.url}/octo-org/octo-repo/issues/100` })
    const issue = gh.state.issue(100)!
    expect(issue.labels).toEqual([REGRESSION_LABEL])
    expect(issue.body).toMatch(/^<!-- llm-bench-regression \{.*\} -->\nCulprit: `abc1234`$/s)

    const second = await upsertEpisodeIssue(request, repo, episode({ cells: ['sglang/chat', 'vllm/chat'], body: 'v2' }))
    expect(second).toEqual({ action: 'updated', number: 100, url: first.url })
    expect(issue.body.endsWith('\nv2')).toBe(true)

    gh.state.log.length = 0
    const third = await upsertEpisodeIssue(request, repo, episode({ body: 'v2' }))
    expect(third).toEqual({ action: 'unchanged', number: 100, url: first.url })
    expect(writes()).toEqual([])
    expect(gh.state.log.map((r) => [r.method, r.path, r.query.labels, r.query.state])).toEqual([
      ['GET', '/repos/octo-org/octo-repo/issues', REGRESSION_LABEL, 'open'],
    ])
    expect(gh.state.issues).toHaveLength(1)
  })

  it('keeps the levels first written when a later bisection reports others', async () => {
    await upsertEpisodeIssue(request, repo, episode())
    const later = episode({
      before: {
        'vllm/chat': {
          decode: { value: 90, higher: true, limit: 0.05 },
          tpot: { value: 12, higher: false, limit: 0.05 },
        },
        'sglang/chat': { decode: { value: 70, higher: true, limit: 0.05 } },
      },
    })
    expect((await upsertEpisodeIssue(request, repo, later)).action).toBe('updated')
    // 93 is within 5 % of 90 but not of 100: the kept level decides.
    const partly = run({ 'vllm/chat': { decode: 93, tpot: 12 }, 'sglang/chat': { decode: 80, ttft: 200 } })
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', partly)).toEqual({ closed: [] })
    const back = run({ 'vllm/chat': { decode: 96, tpot: 12.5 }, 'sglang/chat': { decode: 80, ttft: 200 } })
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', back)).toEqual({ closed: [100] })
  })

  it('opens a second issue for another cell set or another hardware', async () => {
    await upsertEpisodeIssue(request, repo, episode())
    const other = await upsertEpisodeIssue(request, repo, episode({ cells: ['vllm/chat'] }))
    const box = await upsertEpisodeIssue(request, repo, episode({ hardware: 'nvidia-h100' }))
    expect([other.action, other.number, box.action, box.number]).toEqual(['created', 101, 'created', 102])
    expect(openIssues().map((i) => i.number)).toEqual([100, 101, 102])
  })

  it('does not capture a person’s issue, or a PR, quoting the marker', async () => {
    await upsertEpisodeIssue(request, repo, episode())
    const marked = gh.state.issue(100)!.body
    gh.state.issues.length = 0
    const person = gh.state.user('octocat')
    gh.state.addIssue({ title: 'quoting', body: marked, labels: [REGRESSION_LABEL] }, person)
    gh.state.addIssue({ title: 'a PR', body: marked, labels: [REGRESSION_LABEL], pull: true })
    const write = await upsertEpisodeIssue(request, repo, episode())
    expect(write).toMatchObject({ action: 'created', number: 103 })
    expect(gh.state.issue(101)!.title).toBe('quoting')
    expect(writes().at(-1)).toMatchObject({ method: 'POST', path: '/repos/octo-org/octo-repo/issues' })
  })

  it('reads a well-formed marker written by the bot as the episode (the control for the cases below)', async () => {
    gh.state.addIssue({ title: 'by hand', body: `${marker(LEVELS)}\nold`, labels: [REGRESSION_LABEL] })
    expect(marker(LEVELS)).toContain('"vllm/chat":{"decode":{"value":100,')
    expect(await upsertEpisodeIssue(request, repo, episode())).toMatchObject({ action: 'updated', number: 100 })
  })

  it.each([
    ['over 16 KiB', marker(LEVELS, { pad: 'x'.repeat(20_000) })],
    ['bad JSON', `<!-- ${REGRESSION_LABEL} {"hardware": nvidia-gb10 -->`],
    ['--> inside', `<!-- ${REGRESSION_LABEL} {"hardware":"nvidia-gb10","cells":["a-->b"]} -->`],
    ['no end', `<!-- ${REGRESSION_LABEL} {"hardware":"nvidia-gb10"`],
    ['not at the top', `Quoting:\n${marker(LEVELS)}`],
    ['an infinite level', marker(LEVELS).replace('"value":100', '"value":1e999')],
    ['limit 0', marker({ ...LEVELS, 'vllm/chat': { decode: { value: 100, higher: true, limit: 0 } } })],
    ['limit over 10', marker({ ...LEVELS, 'vllm/chat': { decode: { value: 100, higher: true, limit: 10.5 } } })],
    ['a string figure', marker({ ...LEVELS, 'vllm/chat': { decode: { value: '100', higher: true, limit: 0.05 } } })],
    ['a cell without levels', marker({ 'sglang/chat': LEVELS['sglang/chat'] })],
    ['levels of another cell', marker({ ...LEVELS, 'other/chat': LEVELS['vllm/chat'] })],
    ['an id too long', marker(LEVELS, { hardware: 'h'.repeat(201) })],
    ['__proto__ levels', marker(LEVELS).replace('"vllm/chat":{', '"__proto__":{')],
  ])('ignores a malformed marker (%s) without throwing', async (_, body) => {
    gh.state.addIssue({ title: 'hostile', body, labels: [REGRESSION_LABEL] })
    expect(await upsertEpisodeIssue(request, repo, episode())).toMatchObject({ action: 'created', number: 101 })
    expect(gh.state.issue(100)!.body).toBe(body)
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', run({}))).toEqual({ closed: [] })
  })

  it('escapes <, > and & so the marker cannot close its comment, and reads them back', async () => {
    const cells = ['a-->b/<x>', 'c&d/chat']
    const before = { [cells[0]]: { decode: { value: 1, higher: true, limit: 0.05 } } } as Episode['before']
    before[cells[1]] = { decode: { value: 2, higher: true, limit: 0.05 } }
    await upsertEpisodeIssue(request, repo, episode({ cells, before }))
    const body = gh.state.issue(100)!.body
    expect(body.indexOf('-->')).toBe(body.indexOf('\n') - 3)
    expect(body).toContain('a--\\u003eb/\\u003cx\\u003e')
    expect((await upsertEpisodeIssue(request, repo, episode({ cells, before }))).action).toBe('unchanged')
  })

  it('refuses an episode whose marker would not read back, before any write', async () => {
    const bad = episode({ before: { 'vllm/chat': { decode: { value: 100, higher: true, limit: 0.05 } } } })
    await expect(upsertEpisodeIssue(request, repo, bad)).rejects.toThrow('would not read back')
    expect(writes()).toEqual([])
  })

  it('propagates a 403 on creating the issue (read-only token) with its status', async () => {
    gh.inject.forbidComments('write')
    const error = await upsertEpisodeIssue(request, repo, episode()).catch((e: unknown) => e)
    expect(httpStatus(error)).toBe(403)
    expect(gh.state.issues).toEqual([])
  })
})

describe('closeRecoveredEpisodes', () => {
  const within = { 'vllm/chat': { decode: 95.5 }, 'sglang/chat': { decode: 84, ttft: 219 } }

  it('closes a recovered episode with one comment naming the run and the figures', async () => {
    await upsertEpisodeIssue(request, repo, episode())
    await upsertEpisodeIssue(request, repo, episode({ hardware: 'nvidia-h100' }))
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', run(within))).toEqual({ closed: [100] })
    const issue = gh.state.issue(100)!
    expect([issue.state, issue.state_reason]).toEqual(['closed', 'completed'])
    expect(gh.state.issue(101)!.state).toBe('open')
    const comments = gh.state.commentsOn(100)
    expect(comments).toHaveLength(1)
    expect(comments[0].body).toContain(`at \`c0ffee1\` in [this run](${RUN_URL})`)
    expect(comments[0].body).toContain('| vllm/chat | decode | 100 | 95.5 (−4.5%) | 5% |')
    expect(comments[0].body).toContain('| sglang/chat | ttft | 200 | 219 (+9.5%) | 10% |')

    gh.state.log.length = 0
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', run(within))).toEqual({ closed: [] })
    expect(writes()).toEqual([])
  })

  it.each([
    ['decode still past the limit', { ...within, 'vllm/chat': { decode: 94.9 } }],
    ['ttft still past the limit', { ...within, 'sglang/chat': { decode: 84, ttft: 220.5 } }],
    ['a cell not measured', { 'sglang/chat': within['sglang/chat'] }],
    ['a gated metric not measured', { ...within, 'sglang/chat': { decode: 84 } }],
    ['no cell measured', {}],
  ])('leaves it open with no write when %s', async (_, cells) => {
    await upsertEpisodeIssue(request, repo, episode())
    gh.state.log.length = 0
    expect(await closeRecoveredEpisodes(request, repo, 'nvidia-gb10', run(cells))).toEqual({ closed: [] })
    expect(writes()).toEqual([])
    expect(gh.state.issue(100)!.state).toBe('open')
  })
})

describe('pullOfCommit', () => {
  const pull = (number: number, merged: string | null, title = `PR ${number}`) => ({
    number,
    html_url: `https://github.com/octo-org/octo-repo/pull/${number}`,
    title,
    merge_commit_sha: merged,
    merged_at: merged ? '2025-01-02T03:04:05Z' : null,
  })

  it('prefers the merged PR whose merge commit is the sha, and bounds its title', async () => {
    const long = `Speed up\u0007 decode ${'y'.repeat(500)}`
    gh.state.commitPulls.set(SHA, [pull(5, null), pull(6, 'f'.repeat(40)), pull(7, SHA, long)])
    const found = await pullOfCommit(request, repo, SHA)
    expect(found).toMatchObject({ number: 7, url: 'https://github.com/octo-org/octo-repo/pull/7' })
    expect(found!.title).toHaveLength(200)
    expect(found!.title.startsWith('Speed up decode yyy')).toBe(true)
    expect(found!.title.endsWith('…')).toBe(true)
  })

  it('falls back to the first PR, and to undefined when there is none', async () => {
    gh.state.commitPulls.set(SHA, [pull(5, null), pull(6, 'f'.repeat(40))])
    expect(await pullOfCommit(request, repo, SHA)).toEqual({ number: 5, url: pull(5, null).html_url, title: 'PR 5' })
    expect(await pullOfCommit(request, repo, 'a'.repeat(40))).toBeUndefined()
  })
})
