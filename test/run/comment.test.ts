import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { upsertComment, type UpsertOptions } from '../../src/run/comment.js'
import { commentMarker } from '../../src/report/index.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

const PR = 42
let gh: FakeGitHub

beforeEach(async () => {
  gh = await startFakeGitHub()
})
afterEach(async () => {
  await gh.close()
})

function upsert(configPath: string, body: string): ReturnType<typeof upsertComment> {
  const octokit = getOctokit('tok', { baseUrl: gh.url })
  const options: UpsertOptions = {
    request: octokit.request,
    repo: { owner: gh.state.owner, repo: gh.state.repo },
    issueNumber: PR,
    configPath,
    body,
  }
  return upsertComment(options)
}

const ours = (configPath: string) => gh.state.commentsOn(PR).filter((c) => c.body.includes(commentMarker(configPath)))
const listPages = () =>
  gh.state.log
    .filter((r) => r.method === 'GET' && r.path.endsWith(`/issues/${PR}/comments`))
    .map((r) => Number(r.query.page))

describe('upsertComment', () => {
  it('with 150 other comments: creates once, then finds it on page 2 and updates it in place', async () => {
    gh.seedComments(PR, 150)
    const first = await upsert('bench.yml', `${commentMarker('bench.yml')}\nfirst report`)
    expect(first.action).toBe('created')
    expect(listPages()).toEqual([1, 2])

    gh.state.log.length = 0
    const second = await upsert('bench.yml', `${commentMarker('bench.yml')}\nsecond report`)
    expect(second).toEqual({ action: 'updated', url: first.url })
    expect(listPages()).toEqual([1, 2])
    expect(gh.state.log.filter((r) => r.method === 'PATCH')).toHaveLength(1)

    const mine = ours('bench.yml')
    expect(mine).toHaveLength(1)
    expect(mine[0].body).toContain('second report')
    expect(first.url).toBe(`${gh.url}/octo-org/octo-repo/pull/${PR}#issuecomment-${mine[0].id}`)
    expect(gh.state.commentsOn(PR)).toHaveLength(151)
  })

  it('keeps one comment per config path', async () => {
    await upsert('a.yml', 'report a')
    await upsert('b.yml', 'report b')
    await upsert('a.yml', 'report a again')
    await upsert('b.yml', 'report b again')
    expect(ours('a.yml').map((c) => c.body)).toEqual([`${commentMarker('a.yml')}\nreport a again`])
    expect(ours('b.yml').map((c) => c.body)).toEqual([`${commentMarker('b.yml')}\nreport b again`])
    // A path that is a prefix of another is a different marker.
    await upsert('a.y', 'report a.y')
    expect(gh.state.commentsOn(PR)).toHaveLength(3)
  })

  it('adds the marker when the body lacks it, and uses the same marker string as commentMarker', async () => {
    await upsert('cfg/bench.yml', 'plain body')
    expect(gh.state.commentsOn(PR)[0].body).toBe('<!-- llm-bench-gate:cfg/bench.yml -->\nplain body')
  })

  it('prefers the bot comment when a person quoted the marker, and never edits the person’s comment', async () => {
    const marker = commentMarker('bench.yml')
    const [quoted] = gh.seedComments(PR, 1, { login: 'alice', body: `look: ${marker}` })
    const first = await upsert('bench.yml', 'report 1') // the PATCH of alice's comment is refused: post ours
    expect(first.action).toBe('created')
    gh.seedComments(PR, 1, { login: 'bob', body: `again ${marker}` })
    const second = await upsert('bench.yml', 'report 2')
    expect(second).toEqual({ action: 'updated', url: first.url })
    expect(gh.state.comments.find((c) => c.id === quoted.id)!.body).toBe(`look: ${marker}`)
    expect(ours('bench.yml').filter((c) => c.user.type === 'Bot')).toHaveLength(1)
  })

  it('surfaces a 403 (read-only token) as an error carrying the status', async () => {
    gh.inject.forbidComments('write')
    await expect(upsert('bench.yml', 'report')).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('Resource not accessible by integration'),
    })
    gh.inject.forbidComments(false)
    await upsert('bench.yml', 'report')
    gh.inject.forbidComments('write')
    await expect(upsert('bench.yml', 'report 2')).rejects.toMatchObject({ status: 403 })
    expect(ours('bench.yml').map((c) => c.body)).toEqual([`${commentMarker('bench.yml')}\nreport`])
  })

  it('stops paging on a short page when the server sends no Link header', async () => {
    gh.seedComments(PR, 230)
    const calls: number[] = []
    const octokit = getOctokit('tok', { baseUrl: gh.url })
    // A port that drops the Link header: paging must still end, after the short third page.
    const request: UpsertOptions['request'] = async (route, params) => {
      if (route.startsWith('GET')) calls.push(Number(params?.page))
      const res = await octokit.request(route, params)
      return { ...res, headers: { ...res.headers, link: undefined } }
    }
    const result = await upsertComment({
      request,
      repo: { owner: gh.state.owner, repo: gh.state.repo },
      issueNumber: PR,
      configPath: 'x.yml',
      body: 'r',
    })
    expect(result.action).toBe('created')
    expect(calls).toEqual([1, 2, 3])
  })
})
