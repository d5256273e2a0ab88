/** The CLI's usage surface: help for the tool and each command, and usage errors exit 2 without a stack trace. */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-help-'))
})

describe('llm-bench-gate help', () => {
  it.each([[['--help']], [['-h']], [[]]])('%j lists the commands and exits 0', async (args) => {
    const run = await runCli(args, { cwd })
    expect(run.code).toBe(0)
    for (const command of ['validate', 'run', 'compare', 'sim'])
      expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
  })

  it.each([
    ['validate', ['--config', '--only', '--shard']],
    [
      'run',
      ['--config', '--only', '--out', '--shard', '--baseline-file', '--base', '--mode', '--hardware', '--dry-run'],
    ],
    ['compare', ['BASELINE', 'CURRENT', '--config']],
    ['ingest', ['--format', '--out', '--input-tokens', '--output-tokens', '--scenario']],
    ['sim', ['--profile', '--port', '--host', '--time-scale', '--seed', '--load-ms', '--fault']],
  ])('%s --help names its options and exits 0', async (command, options) => {
    const run = await runCli([command, '--help'], { cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`llm-bench-gate ${command}`)
    for (const option of options) expect(run.stdout).toContain(option)
  })

  it('an unknown command prints the usage and exits 2', async () => {
    const run = await runCli(['benchmark'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stdout).toContain('Usage: llm-bench-gate <command>')
  })

  it('an unknown option names the option and exits 2', async () => {
    const run = await runCli(['run', '--rounds', '3'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("Unknown option '--rounds'")
    expect(run.stderr).toContain('llm-bench-gate run --help')
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })

  it.each([
    ['run', '--dry-run', '&&', 'echo'],
    ['validate', '&&'],
  ])('a stray argument to %s is named and exits 2, nothing runs', async (command, ...rest) => {
    const run = await runCli([command, ...rest], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`${command} takes no arguments, got "&&"`)
    expect(run.stdout).toBe('')
  })
})
