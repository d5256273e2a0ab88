/** The fake answers as GitHub does for the routes the store and the comment use (statuses, fields, Link). */
import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { httpStatus } from '../../src/core/github-port.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

let gh: FakeGitHub
let octokit: ReturnType<typeof getOctokit>
const repo = { owner: 'octo-org', repo: 'octo-repo' }
const b64 = (s: string) => Buffer.from(s).toString('base64')
const status = (p: Promise<unknown>) =>
  p.then(
    () => 0,
    (e: unknown) => httpStatus(e),
  )

beforeEach(async () => {
  gh = await startFakeGitHub()
  octokit = getOctokit('tok', { baseUrl: gh.url })
})
afterEach(async () => {
  await gh.close()
})

describe('fake GitHub: contents', () => {
  it('creates (201), reads (base64 with sha), updates with the sha (200), and refuses stale or missing shas', async () => {
    const put = (extra: Record<string, unknown>) =>
      octokit.request('PUT /repos/{owner}/{repo}/contents/{path}', {
        ...repo,
        path: 'dir/f.json',
        message: 'm',
        content: b64('one'),
        ...extra,
      })
    const created = await put({})
    expect(created.status).toBe(201)
    // git's blob id for "one"
    expect(created.data.content!.sha).toBe('43dd47ea691c90a5fa7827892c70241913351963')
    const read = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      ...repo,
      path: 'dir/f.json',
      ref: 'main',
    })
    expect(read.data).toMatchObject({
      type: 'file',
      encoding: 'base64',
      sha: created.data.content!.sha,
      path: 'dir/f.json',
    })
    expect(Buffer.from((read.data as { content: string }).content, 'base64').toString()).toBe('one')
    expect(await status(put({}))).toBe(422)
    expect(await status(put({ sha: 'f'.repeat(40) }))).toBe(409)
    const updated = await put({ sha: created.data.content!.sha, content: b64('two') })
    expect(updated.status).toBe(200)
    expect(updated.data.commit.parents).toHaveLength(1)
    expect(await status(put({ branch: 'nope' }))).toBe(404)
    expect(
      await status(octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: 'x', ref: 'nope' })),
    ).toBe(404)
    expect(gh.state.log.at(-1)!.authorization).toBe('token tok')
  })

  it('fails the next N PUTs on request, then behaves again', async () => {
    gh.inject.failContentsPuts(2)
    const put = () =>
      octokit.request('PUT /repos/{owner}/{repo}/contents/{path}', {
        ...repo,
        path: 'a',
        message: 'm',
        content: b64('x'),
      })
    expect([await status(put()), await status(put()), await status(put())]).toEqual([409, 409, 0])
  })
})

describe('fake GitHub: git data', () => {
  it('builds an orphan branch from blob, tree and parentless commit; a second ref with the name is a 422', async () => {
    expect(
      await status(octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: 'heads/data' })),
    ).toBe(404)
    const blob = await octokit.rest.git.createBlob({ ...repo, content: 'hi', encoding: 'utf-8' })
    const tree = await octokit.rest.git.createTree({
      ...repo,
      tree: [{ path: 'a.txt', mode: '100644', type: 'blob', sha: blob.data.sha }],
    })
    const commit = await octokit.rest.git.createCommit({ ...repo, message: 'orphan', tree: tree.data.sha, parents: [] })
    expect(commit.data.parents).toEqual([])
    const ref = await octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/data', sha: commit.data.sha })
    expect(ref.status).toBe(201)
    const got = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: 'heads/data' })
    expect(got.data.object.sha).toBe(commit.data.sha)
    expect(await status(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/data', sha: commit.data.sha }))).toBe(
      422,
    )
    expect(gh.state.readFile('data', 'a.txt')).toBe('hi')
  })
})

describe('fake GitHub: issue comments', () => {
  it('pages with a Link header that octokit.paginate follows', async () => {
    gh.seedComments(7, 250)
    const first = await octokit.rest.issues.listComments({ ...repo, issue_number: 7, per_page: 100 })
    expect(first.headers.link).toContain('page=2>; rel="next"')
    expect(first.headers.link).toContain('page=3>; rel="last"')
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...repo, issue_number: 7, per_page: 100 })
    expect(all.map((c) => c.body)).toEqual(Array.from({ length: 250 }, (_, i) => `unrelated comment ${i + 1}`))
  })

  it('creates as the bot, updates its own, refuses others’ and over-long bodies, 403s when forbidden', async () => {
    const [theirs] = gh.seedComments(3, 1, { login: 'alice' })
    const created = await octokit.rest.issues.createComment({ ...repo, issue_number: 3, body: 'x' })
    expect(created.status).toBe(201)
    expect(created.data.user).toMatchObject({ login: 'github-actions[bot]', type: 'Bot' })
    expect(created.data.html_url).toBe(`${gh.url}/octo-org/octo-repo/pull/3#issuecomment-${created.data.id}`)
    expect(
      (await octokit.rest.issues.updateComment({ ...repo, comment_id: created.data.id, body: 'y' })).data.body,
    ).toBe('y')
    expect(await status(octokit.rest.issues.updateComment({ ...repo, comment_id: theirs.id, body: 'z' }))).toBe(403)
    expect(
      await status(octokit.rest.issues.createComment({ ...repo, issue_number: 3, body: 'x'.repeat(65_537) })),
    ).toBe(422)
    gh.inject.forbidComments('write')
    expect(await status(octokit.rest.issues.createComment({ ...repo, issue_number: 3, body: 'x' }))).toBe(403)
    expect(await status(octokit.rest.issues.listComments({ ...repo, issue_number: 3 }))).toBe(0)
    gh.inject.forbidComments('all')
    expect(await status(octokit.rest.issues.listComments({ ...repo, issue_number: 3 }))).toBe(403)
  })
})
