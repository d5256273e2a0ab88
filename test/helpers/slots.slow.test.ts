/**
 * The machine's test slots (test/helpers/slots.ts): two suites side by side hold at most MACHINE_SLOTS of them
 * between them, a slot whose owner died is taken over, a waiter gives up naming the holders, and the bundle's
 * holder frees its slot when the command ends. Each case uses a folder of its own, not the machine's.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MACHINE_SLOTS } from '../projects.js'
import { takeSlot } from './slots.js'

const folder = () => mkdtemp(join(tmpdir(), 'lbg-slots-'))

describe('test slots', () => {
  it(`hands out ${MACHINE_SLOTS} at once; the next waiter gets the first one freed`, async () => {
    const dir = await folder()
    const held = await Promise.all(Array.from({ length: MACHINE_SLOTS }, () => takeSlot(60_000, dir)))
    let third = false
    const waiting = takeSlot(60_000, dir).then((slot) => ((third = true), slot))
    // Four polls of the waiter: nothing is free, so it must still wait.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(third).toBe(false)
    held[0].release()
    const slot = await waiting
    expect(third).toBe(true)
    expect((await readdir(dir)).sort()).toEqual(Array.from({ length: MACHINE_SLOTS }, (_, i) => `slot-${i}`))
    slot.release()
    held[1].release()
    expect(await readdir(dir)).toEqual([])
  })

  it('takes over a slot whose owner is gone, and never one whose owner lives', async () => {
    const dir = await folder()
    const gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim()
    await writeFile(join(dir, 'slot-0'), `${gone} 12345 stale-token`)
    const alive = await takeSlot(60_000, dir)
    const taken = await takeSlot(60_000, dir)
    await expect(takeSlot(600, dir)).rejects.toThrow(
      new RegExp(`no test slot free in ${dir} after 0\\.01 min \\(held by pid ${process.pid}, pid ${process.pid}\\)`),
    )
    alive.release()
    taken.release()
  })

  it('runs the bundle’s command holding a slot, exits with its status and frees the slot', async () => {
    const dir = await folder()
    const env = { ...process.env, LLM_BENCH_TEST_SLOTS_DIR: dir }
    const script = 'ls "$LLM_BENCH_TEST_SLOTS_DIR"; exit 3'
    const child = spawn('npx', ['tsx', 'test/helpers/hold-slot.ts', 'sh', '-c', script], { env })
    let out = ''
    child.stdout.on('data', (chunk) => (out += String(chunk)))
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(out.trim()).toBe('slot-0')
    expect(code).toBe(3)
    expect(await readdir(dir)).toEqual([])
  })
})
