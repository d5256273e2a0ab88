import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../helpers/memory-logger.js'
import type { HistoryEntry } from '../../src/core/results.js'
import { pagesDashboardUrl, recentTrends } from '../../src/run/dashboard-links.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { flatCell } from '../helpers/builders.js'

let gh: FakeGitHub
beforeEach(async () => {
  gh = await startFakeGitHub()
})
afterEach(async () => {
  await gh.close()
})

const github = () => ({
  request: getOctokit('t', { baseUrl: gh.url }).request,
  repo: { owner: gh.state.owner, repo: gh.state.repo },
})

describe('pagesDashboardUrl', () => {
  it('links the hardware dashboard when Pages serves the data branch', async () => {
    gh.state.pages = {
      html_url: 'https://octo-org.github.io/octo-repo/',
      source: { branch: 'llm-bench-data', path: '/' },
    }
    await expect(pagesDashboardUrl(github(), 'llm-bench-data', 'nvidia-gb10', memoryLogger())).resolves.toBe(
      'https://octo-org.github.io/octo-repo/nvidia-gb10/index.html',
    )
  })

  it('no link without a site, for a site built from another branch, or when the lookup fails', async () => {
    const log = memoryLogger()
    await expect(pagesDashboardUrl(github(), 'llm-bench-data', 'cpu', log)).resolves.toBeUndefined()
    gh.state.pages = { html_url: 'https://octo-org.github.io/octo-repo/', source: { branch: 'gh-pages', path: '/' } }
    await expect(pagesDashboardUrl(github(), 'llm-bench-data', 'cpu', log)).resolves.toBeUndefined()
    const broken = {
      request: () => Promise.reject(Object.assign(new Error('boom'), { status: 500 })),
      repo: github().repo,
    }
    await expect(pagesDashboardUrl(broken, 'llm-bench-data', 'cpu', log)).resolves.toBeUndefined()
  })
})

describe('recentTrends', () => {
  it('takes each cell’s decode means from the history, oldest first, skipping runs without it', () => {
    const cell = flatCell('t/chat', { decode: 45, ttft: 300 })
    const entry = (decode: number | undefined): HistoryEntry => ({
      sha: 's',
      date: '',
      runUrl: '',
      cells: decode === undefined ? {} : { 't/chat': { 'decode_tps.mean': { steady: decode, rounds: [] } } },
    })
    expect(recentTrends([cell], [entry(40), entry(undefined), entry(42), entry(44)])).toEqual({
      't/chat': [40, 42, 44],
    })
    expect(recentTrends([cell], [entry(40)])).toEqual({})
  })
})
