/**
 * The dashboard link of a PR run whose repository serves the data branch with GitHub Pages, through the bundled
 * action. The report and the job summary are on disk before the Pages lookup (the fake GitHub reads what is
 * there as the lookup arrives); once the link is known the report is not rendered again: `report.md` and the
 * summary become what they were plus the link's line, and the comment, rendered once with the link, carries it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'

const BRANCH = 'llm-bench-data'
const SITE = 'https://octo-org.github.io/octo-repo/'
const LINK = `📈 [Dashboard](${SITE}hw/index.html): every cell's decode and TTFT over the default branch's runs.`

let github: FakeGitHub
let engine: ScheduledServer
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  engine = await startScheduledServer({ ttftMs: 20, intervalMs: 5 })
  cwd = await mkdtemp(join(tmpdir(), 'lbg-link-'))
})
afterAll(async () => {
  await Promise.all([github?.close(), engine?.close()])
})

describe('the dashboard link', () => {
  it('is added to the report and summary written before the lookup, without rendering them again', async () => {
    const summaryFile = join(cwd, 'summary.md')
    await writeFile(summaryFile, '')
    const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined)
    let atLookup: { report?: string; summary?: string } | undefined
    // The fake reads `pages` as the lookup arrives: what is on disk then was written before any answer.
    Object.defineProperty(github.state, 'pages', {
      get() {
        atLookup ??= { report: read(join(cwd, 'out', 'report.md')), summary: read(summaryFile) }
        return { html_url: SITE, source: { branch: BRANCH, path: '/' } }
      },
    })
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
        'scenarios:',
        '  short: { input-tokens: 16, output-tokens: 8, concurrency: 2 }',
        'targets:',
        `  loopback: { engine: openai, url: ${engine.url}, model: scheduled }`,
        '',
      ].join('\n'),
    )
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    const run = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'github-token': 'test-token', hardware: 'hw', 'results-dir': 'out' },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo', GITHUB_STEP_SUMMARY: summaryFile },
      event: {
        name: 'pull_request',
        ref: 'refs/pull/5/merge',
        sha: '5'.repeat(40),
        payload: { pull_request: { number: 5 }, repository },
      },
      timeoutMs: 90_000,
    })
    expect(run.code, run.stdout + run.stderr).toBe(0)

    const before = atLookup?.report
    expect(before, 'report.md before the Pages lookup').toContain('loopback/short')
    expect(before).not.toContain('Dashboard')
    expect(atLookup?.summary?.trimEnd()).toBe(before?.trimEnd())
    const report = read(join(cwd, 'out', 'report.md'))!
    expect(report).toBe(`${before}\n${LINK}\n`)
    expect(read(summaryFile)!.trimEnd()).toBe(report.trimEnd())
    const [comment] = github.state.commentsOn(5)
    expect(comment.body.split(LINK)).toHaveLength(2)
    expect(read(join(cwd, 'out', 'comment.md'))).toBe(comment.body)
  }, 120_000)
})
