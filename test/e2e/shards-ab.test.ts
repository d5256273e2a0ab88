/**
 * The shard workflow of docs/workflows.md on a pull request, through `node dist/index.js`: two shards, each in a
 * depth-1 checkout of the PR's head with a real git origin behind it, then `mode: merge` over both shards' results
 * files. The box is 15 % slower than when the baseline was stored and its driver changed, so against the stored
 * baseline every cell looks regressed and `ab: confirm` wants a same-box A/B for each; base and PR are the same
 * build (the PR changes only its README), so the A/B finds them equal. A merged report that judged these cells on
 * the stored baseline alone, without an A/B and without saying so, would fail a PR that changed nothing.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CellResult } from '../../src/core/results.js'
import { ROOT } from '../helpers/action.js'
import { PROFILE, abMatrix, box, gitWorkspace, prRun, storedBaseline, type GitWorkspace } from '../helpers/ab-box.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

const SLOWER_BOX = box(0.85, '590.10')
const IDS = ['sim-a/short', 'sim-b/short']

let baseline: string
let github: FakeGitHub

beforeAll(async () => {
  github = await startFakeGitHub({ owner: 'o', repo: 'r' })
  baseline = await storedBaseline(abMatrix([1, 1]))
}, 120_000)
afterAll(() => github?.close())

/** The `mode` the documented shard step runs with on a `pull_request` event, read from docs/workflows.md. */
async function documentedShardMode(): Promise<string> {
  const docs = await readFile(join(ROOT, 'docs/workflows.md'), 'utf8')
  const section = docs.slice(docs.indexOf('## Shards'))
  const step = /with: \{ shard: '\$\{\{ matrix\.shard \}\}', mode: (.+?) \}\n/.exec(section)
  if (!step) throw new Error('docs/workflows.md: no shard step `with: { shard: …, mode: … }` under ## Shards')
  // A plain mode, or the expression `${{ github.event_name == 'pull_request' && 'A' || 'B' }}`.
  const expression = /github\.event_name == 'pull_request' && '(\w[\w-]*)' \|\| '\w[\w-]*'/.exec(step[1])
  return expression ? expression[1] : step[1].replace(/^['"]|['"]$/g, '')
}

function workspace(): GitWorkspace {
  return gitWorkspace({
    base: { 'bench.yml': abMatrix([1, 1]), 'profiles/box.json': PROFILE, 'README.md': 'a\n' },
    head: { 'README.md': 'b\n' },
  })
}

const withGitHub = (inputs: Record<string, string>) => ({ 'github-token': 'test-token', ...inputs })

/** Both shards with `mode`, each into its own folder as its artifact would arrive, then the merge over them. */
async function shardsThenMerge(ws: GitWorkspace, mode: string) {
  const ghEnv = { ...SLOWER_BOX, GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'o/r' }
  const shards = []
  for (const [i, shard] of ['1/2', '2/2'].entries())
    shards.push(
      await prRun(
        ws,
        withGitHub({ shard, mode, 'baseline-file': baseline, 'results-dir': `out/shard-${i}` }),
        ghEnv,
        `results-shard-${i + 1}-of-2.json`,
      ),
    )
  const merged = await prRun(ws, withGitHub({ mode: 'merge', 'baseline-file': baseline, 'results-dir': 'out' }), ghEnv)
  return { shards, merged }
}

const cellOf = (cells: readonly CellResult[], id: string) => cells.find((c) => c.id === id)!

/** Comment writes on the PR (creates and updates) since `from` in the fake GitHub's request log. */
const commentWrites = (from: number) =>
  github.state.log.slice(from).filter((r) => /\/issues\/(7\/)?comments/.test(r.path) && r.method !== 'GET')

describe('shards on a pull request: the same-box A/B', () => {
  it('the documented workflow runs the A/B in each shard and the merge keeps it; only the merge comments', async () => {
    const mode = await documentedShardMode()
    const ws = workspace()
    const from = github.state.log.length
    const { shards, merged } = await shardsThenMerge(ws, mode)
    for (const [i, shard] of shards.entries()) {
      const [cell] = shard.results.cells
      expect(cell.id).toBe(IDS[i])
      expect(cell.ab?.status, `shard ${i + 1}/2 ran mode ${mode}: ${cell.verdict.note}`).toBe('ran')
      expect(shard.stdout).toContain('a shard does not write the PR comment: the merge run writes it')
    }
    for (const id of IDS) {
      const cell = cellOf(merged.results.cells, id)
      expect(cell.ab?.status, cell.verdict.note).toBe('ran')
      expect(cell.ab?.stored?.status).toBe('regression')
      expect(cell.ab?.arms?.map((a) => a.arm)).toEqual(['base', 'pr', 'pr', 'base'])
      expect(cell.verdict.status).toBe('pass')
    }
    expect(merged.results.run.mode).toBe('merge')
    expect(merged.report).toMatch(/Same-box A\/B against the base `[0-9a-f]{7}` \(ABBA × 2\): 2 cells of 2 targets/)
    expect(merged.code, merged.stdout).toBe(0)
    // One comment, written once, by the merge: a shard's would show half the cells until the merge replaced it.
    const writes = commentWrites(from)
    expect(writes.map((w) => w.method)).toEqual(['POST'])
    const [comment] = github.state.commentsOn(7)
    expect(comment.body).toContain('sim-a')
    expect(comment.body).toContain('sim-b')
  }, 600_000)

  it('shards that ran mode: run: the merge says per cell that wanted an A/B that none ran, and why', async () => {
    const ws = workspace()
    const { shards, merged } = await shardsThenMerge(ws, 'run')
    for (const id of IDS) {
      const cell = cellOf(merged.results.cells, id)
      expect(cell.verdict.status).toBe('regression')
      expect(cell.ab).toMatchObject({ status: 'not-run', reason: expect.stringMatching(/^the shard ran mode: run, /) })
      expect(cell.verdict.note).toMatch(
        /same-box A\/B not run: the shard ran mode: run, .*the stored-baseline verdict stands/,
      )
    }
    expect(merged.report).toMatch(/Same-box A\/B not run for 2 cells: the shard ran mode: run, /)
    for (const shard of shards) expect(shard.results.run.mode).toBe('run')
    expect(merged.code).toBe(1)
  }, 600_000)
})
