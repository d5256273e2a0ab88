/**
 * The run's id in launch and `stop:` commands, through the bundled action: `{run}` in their text and
 * LLM_BENCH_RUN_ID in their environment name the same id, and one of this run only (the workflow run, its
 * attempt and a random part), so a stop command can remove what its own launch started and nothing else.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fakeLaunch } from '../engines/fake.js'
import { runAction } from '../helpers/action.js'

describe('{run} and LLM_BENCH_RUN_ID', () => {
  it('name the same id of this run in the launch and the stop command', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-run-id-'))
    const ids = join(cwd, 'ids.txt')
    const launch = `echo "launch {run} $LLM_BENCH_RUN_ID" >> '${ids}'; exec ${fakeLaunch('vllm')}`
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: false }',
        'scenarios:',
        '  s: { input-tokens: 16, output-tokens: 4, concurrency: 1 }',
        'targets:',
        '  t:',
        '    engine: vllm',
        `    launch: ${JSON.stringify(launch)}`,
        `    stop: ${JSON.stringify(`echo "stop {run} $LLM_BENCH_RUN_ID" >> '${ids}'`)}`,
        '',
      ].join('\n'),
    )
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 60_000 })
    expect(run.code, run.stdout).toBe(0)
    const lines = (await readFile(ids, 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(2)
    const [launched, stopped] = lines.map((l) => l.split(' '))
    // GITHUB_RUN_ID 4242, attempt 1, then the random part.
    expect(launched[1]).toMatch(/^4242-1-[0-9a-f]{8}$/)
    expect(launched).toEqual(['launch', launched[1], launched[1]])
    expect(stopped).toEqual(['stop', launched[1], launched[1]])
  }, 90_000)
})
