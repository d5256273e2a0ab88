/**
 * A drafting cell decided by the same-box A/B through the bundled CLI (`run --mode compare --base HEAD~1`): a git
 * repository whose head commit changes only the simulated drafter, the MTP k = 3 profile with `acceptance: prompt`
 * (acceptance a function of each prompt's text, as greedy decoding makes it) and 3 % launch noise. Both arms send
 * the same text prompts round by round, so acceptance is paired: unchanged, it is the same to the last digit; a
 * drafter accepting 10 % less (`accept-factor: 0.9`) is a regression within four launches per arm, attributed to
 * acceptance, whatever the launch noise does to decode.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CellResult, ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'

function matrix(acceptFactor?: number): string {
  return [
    'version: 1',
    'hardware: box',
    'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 30s, request-timeout: 60s, quality: false, ab: always }',
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  chat: { input-tokens: 128, output-tokens: 64, concurrency: 1, requests: 4, prompts: text }',
    'targets:',
    '  mtp:',
    '    engine: sim',
    '    profile: vllm-qwen38-27b-nvfp4-mtp3',
    '    time-scale: 10',
    '    launch-cv: 3%',
    '    acceptance: prompt',
    acceptFactor === undefined ? '' : `    accept-factor: ${acceptFactor}`,
    '',
  ].join('\n')
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd })

/** A repository whose head commit has the matrix `head`, on a base commit with the unchanged one; the A/B run. */
async function abRun(head: string): Promise<{ code: number | null; output: string; cell: CellResult }> {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-spec-ab-'))
  git(cwd, 'init', '-q')
  await writeFile(join(cwd, 'bench.yml'), matrix())
  git(cwd, 'add', '-A')
  git(cwd, 'commit', '-qm', 'base')
  await writeFile(join(cwd, 'bench.yml'), head)
  git(cwd, 'commit', '-qam', 'head', '--allow-empty')
  const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out', '--mode', 'compare', '--base', 'HEAD~1'], {
    cwd,
    timeoutMs: 100_000,
  })
  const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
  return { code: run.code, output: run.stdout + run.stderr, cell: results.cells[0] }
}

const factor = (cell: CellResult) => cell.verdict.metrics.decode?.factors?.find((f) => f.metric === 'accept-length')

describe('a drafting cell under the same-box A/B', () => {
  it('unchanged: acceptance is paired on the same prompts and equal to the last digit; never a regression', async () => {
    const { output, cell } = await abRun(matrix())
    expect(cell.ab?.status, output).toBe('ran')
    const accept = factor(cell)!
    expect(accept.reason).toContain('paired on the same prompts')
    expect(accept.delta).toBe(0)
    expect(accept.status).toBe('pass')
    expect(cell.verdict.status, cell.verdict.metrics.decode?.reason).not.toBe('regression')
  }, 120_000)

  it('a drafter accepting 10 % less: a regression within two blocks, attributed to acceptance', async () => {
    const { code, output, cell } = await abRun(matrix(0.9))
    expect(code, output).toBe(1)
    expect(cell.verdict.status).toBe('regression')
    // Paired on the same prompts, the loss stands out of the rounds' residue at once: the first block in the
    // Monte-Carlo (test/compare/ab-spec-decode.test.ts), the second at most on a loaded runner.
    expect(cell.ab?.launches).toBeLessThanOrEqual(4)
    const accept = factor(cell)!
    expect(accept.status).toBe('regression')
    // The profile's mean length × 0.9, before the cap of k drafts a step: 10 % less, give or take the cap.
    expect(accept.delta!).toBeGreaterThan(-0.12)
    expect(accept.delta!).toBeLessThan(-0.08)
    expect(cell.verdict.metrics.decode?.reason).toMatch(/acceptance length −\d/)
  }, 120_000)
})
