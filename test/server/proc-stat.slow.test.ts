import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseProcStat, readProcStat } from '../../src/io/proc-stat.js'
import { killGroupQuietly } from './procs.js'

/** A stat line as fs/proc/array.c writes it: pid, (comm), then fields 3 to 52; state S, pgrp 4321, starttime 98765. */
function line(comm: string): string {
  const rest = Array.from({ length: 50 }, (_, i) => String(i + 3))
  rest[0] = 'S'
  rest[2] = '4321'
  rest[19] = '98765'
  return `4321 (${comm}) ${rest.join(' ')}\n`
}

describe('parseProcStat', () => {
  it.each([
    ['plain', 'bash'],
    ['spaces', 'vllm serve x'],
    ['a closing parenthesis', 'a) b'],
    ['what looks like the next fields', 'x) Z 1 1 1'],
    ['parentheses only', '()()))'],
    ['an opening parenthesis', '(('],
    ['empty', ''],
  ])('counts the fields from the last ")": comm with %s', (_, comm) => {
    expect(parseProcStat(line(comm))).toEqual({ state: 'S', pgrp: 4321, startTime: 98765 })
  })

  it.each([
    ['no parenthesis', '4321 bash S 1 4321'],
    ['cut short before field 22', '4321 (bash) S 1 4321 4321 0 -1'],
    ['a start time that is not a count', line('bash').replace(' 98765 ', ' -5 ')],
    ['no space after ")"', '4321 (bash)S 1 4321'],
    ['empty', ''],
  ])('refuses a line with %s', (_, text) => {
    expect(parseProcStat(text)).toBeUndefined()
  })
})

describe('readProcStat on a real process', () => {
  const pids: number[] = []
  afterEach(() => pids.splice(0).forEach(killGroupQuietly))

  it('reads the group and start time of a process whose name holds spaces and parentheses', async () => {
    // comm is the name of the file executed: a link named like the next fields.
    const dir = mkdtempSync(join(tmpdir(), 'lbg-comm-'))
    const odd = join(dir, 'a) R 1 (b')
    symlinkSync(execFileSync('bash', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), odd)
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))
    const uptime = () => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0])
    const before = uptime()
    const child = spawn(odd, ['3000'], { detached: true, stdio: 'ignore' })
    pids.push(child.pid!)
    await new Promise((r) => child.once('spawn', r))
    const after = uptime()
    expect(readFileSync(`/proc/${child.pid}/stat`, 'utf8')).toContain('(a) R 1 (b)')
    const stat = readProcStat(child.pid!)!
    expect(stat.pgrp).toBe(child.pid)
    expect(stat.state).toMatch(/^[RS]$/)
    // starttime is in clock ticks after boot: it lies between the uptimes read around the spawn.
    expect(stat.startTime).toBeGreaterThanOrEqual(Math.floor((before - 0.01) * ticks))
    expect(stat.startTime).toBeLessThanOrEqual(Math.ceil((after + 0.01) * ticks))
  })

  it('is undefined for a pid that runs no process', () => {
    expect(readProcStat(2 ** 22 + 1)).toBeUndefined()
  })
})
