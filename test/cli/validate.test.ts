/** `llm-bench-gate validate`: the plan of a good matrix file; every problem of a bad one, each with its field. */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-validate-'))
  await writeFile(
    join(cwd, 'good.yml'),
    [
      'version: 1',
      'hardware: cli-sim',
      'scenarios:',
      '  chat: { input-tokens: 128, output-tokens: 24, concurrency: 4 }',
      '  single: { input-tokens: 512, output-tokens: 24, concurrency: 1 }',
      'targets:',
      '  small: { engine: sim, profile: vllm-qwen35-08b }',
      '',
    ].join('\n'),
  )
  await writeFile(
    join(cwd, 'bad.yml'),
    [
      'version: 1',
      'defaults: { rounds: 0 }',
      'scenarios:',
      '  chat: { input-tokens: 128, output-tokens: many, concurrency: 4 }',
      'targets:',
      '  small: { engine: vlm, model: m }',
      '',
    ].join('\n'),
  )
})

describe('llm-bench-gate validate', () => {
  it('prints the plan of a good file and exits 0', async () => {
    const run = await runCli(['validate', '--config', 'good.yml'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('1 target, 2 cells; hardware cli-sim')
    expect(run.stdout).toMatch(/launch .* sim --profile vllm-qwen35-08b .*--port \{port\}/)
    expect(run.stdout).toContain('small/chat')
    expect(run.stdout).toContain('small/single')
  })

  it('--only narrows the plan', async () => {
    const run = await runCli(['validate', '--config', 'good.yml', '--only', '*/single'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('small/single')
    expect(run.stdout).not.toContain('small/chat')
  })

  it('lists every problem of a bad file with its field and exits 2', async () => {
    const run = await runCli(['validate', '--config', 'bad.yml'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('3 problems')
    expect(run.stderr).toMatch(/defaults\.rounds: .*\(got 0\)/)
    expect(run.stderr).toMatch(/scenarios\.chat\.output-tokens: .*\(got "many"\)/)
    expect(run.stderr).toMatch(/targets\.small\.engine: unknown engine "vlm"/)
  })

  it('names a missing file and exits 2', async () => {
    const run = await runCli(['validate', '--config', 'absent.yml'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('absent.yml')
  })
})

describe('validate for an engine: external target', () => {
  it('prints no quality probe, since none runs for it', async () => {
    await writeFile(
      join(cwd, 'external.yml'),
      [
        'version: 1',
        'scenarios:',
        '  s: { input-tokens: 512, output-tokens: 128, concurrency: 8 }',
        'targets:',
        '  ext: { engine: external, url: "http://127.0.0.1:9", format: vllm, run: "true {out}" }',
        '  small: { engine: sim, profile: vllm-qwen35-08b }',
        '',
      ].join('\n'),
    )
    const run = await runCli(['validate', '--config', 'external.yml'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    const [ext, small] = run.stdout.split('\n\n').slice(1)
    expect(ext).toMatch(/^ {2}probe +none: another tool measures this target, nothing is probed$/m)
    expect(small).toMatch(/^ {2}probe +\d+ questions/m)
  })
})
