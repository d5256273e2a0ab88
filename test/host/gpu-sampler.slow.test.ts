/**
 * The per-round GPU sampler against the scripted nvidia-smi's loop (test/helpers/nvidia-smi): rows arrive as
 * printed, stop() kills the loop's whole group, the owner is told the pid at once and released once it is gone,
 * and a missing or failing nvidia-smi samples nothing without an error.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { MAX_SAMPLES, samplerArgs, startGpuSampler } from '../../src/host/index.js'
import { psGroup } from '../server/procs.js'
import { SMI_DIR } from './smi.js'

const command = (scenario: string, state: string) =>
  ['env', `FAKE_SMI_SCENARIO=${scenario}`, `FAKE_SMI_STATE=${state}`, join(SMI_DIR, 'nvidia-smi')] as const

describe('startGpuSampler', () => {
  it('asks for at most 2 samples a second by default', () => {
    expect(samplerArgs()).toEqual([
      '--query-gpu=index,power.draw,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu',
      '--format=csv,noheader,nounits',
      '-lms',
      '500',
    ])
  })

  it('collects the rows as printed; stop() ends its whole group and then releases it', async () => {
    const state = await mkdtemp(join(tmpdir(), 'lbg-sampler-'))
    const events: string[] = []
    let pid = 0
    const sampler = startGpuSampler({
      command: command('ok', state),
      intervalMs: 100,
      adopt: (p) => {
        pid = p
        events.push('adopt')
        return () => events.push('release')
      },
    })
    expect(events).toEqual(['adopt'])
    // The loop writes its pid as it starts (a loaded runner may take a while to start a shell), then prints at once
    // and every 100 ms: 1 s from then gives 11 rows on a quiet runner, fewer when its sleeps wake late, never more.
    const started = join(state, 'sampler.pids')
    for (let i = 0; i < 200 && !(await readFile(started, 'utf8').catch(() => '')); i++) await delay(50)
    const from = performance.now()
    await delay(1000)
    const samples = await sampler.stop()
    expect(samples.length).toBeGreaterThanOrEqual(3)
    expect(samples.length).toBeLessThanOrEqual(1 + Math.floor((performance.now() - from) / 100) + 1)
    expect(samples[0]).toMatchObject({ index: 0, powerW: 100, smClockMhz: 1980, memClockMhz: 2619 })
    expect(samples.every((s, i) => i === 0 || s.at >= samples[i - 1].at)).toBe(true)
    expect(events).toEqual(['adopt', 'release'])
    expect((await readFile(join(state, 'sampler.pids'), 'utf8')).trim()).toBe(String(pid))
    // Its `sleep` went with it: nothing is left in the group.
    expect(psGroup(pid)).toEqual([])
  })

  it('no nvidia-smi, or one that fails: no samples, no error, nothing to release', async () => {
    const state = await mkdtemp(join(tmpdir(), 'lbg-sampler-'))
    const adopted: number[] = []
    const missing = startGpuSampler({ command: ['/nonexistent/nvidia-smi'], adopt: (p) => (adopted.push(p), () => {}) })
    expect(await missing.stop()).toEqual([])
    expect(adopted).toEqual([])
    const failing = startGpuSampler({ command: command('sampler-fails', state) })
    await delay(100)
    expect(await failing.stop()).toEqual([])
  })

  it('a flood of rows is bounded', async () => {
    const state = await mkdtemp(join(tmpdir(), 'lbg-sampler-'))
    const sampler = startGpuSampler({ command: command('flood', state) })
    await delay(1500)
    const samples = await sampler.stop()
    expect(samples.length).toBeGreaterThan(MAX_SAMPLES / 4)
    expect(samples.length).toBeLessThan(MAX_SAMPLES)
  })
})
