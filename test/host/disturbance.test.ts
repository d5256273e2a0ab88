/**
 * The rule that calls a round's box disturbed (host/disturbance.ts), each threshold on both sides; which processes are
 * this run's (host/box-watch.ts); and how a verdict gathers the disturbed rounds it rests on (compare/disturbed.ts).
 */
import { describe, expect, it } from 'vitest'
import { disturbances, ownedBy } from '../../src/host/index.js'
import { disturbedRounds, withDisturbed } from '../../src/compare/index.js'
import type { RoundHost } from '../../src/core/round-host.js'
import { cell, round } from '../helpers/builders.js'

const GIB = 1024 ** 3
const quiet: RoundHost = {
  samples: 3,
  memory: { beforeBytes: 60 * GIB, afterBytes: 60 * GIB, minBytes: 59 * GIB },
  swap: { usedBytes: 0, inPages: 0, outPages: 0 },
  cpu: { busy: 0.4, cores: 8, top: [{ pid: 77, comm: 'sshd', cores: 0.02 }] },
}
const launched = { floorBytes: 4 * GIB, countCpu: true }

describe('disturbances', () => {
  it('finds nothing on a quiet box', () => {
    expect(disturbances(quiet, launched)).toEqual([])
  })

  it.each([
    ['another process over half a core', 0.51, ['stress (pid 123) used 51 % of a core during the round']],
    ['another process at exactly half a core', 0.5, []],
    ['another process on four cores', 3.9, ['stress (pid 123) used 3.9 cores during the round']],
  ])('CPU: %s', (_what, cores, found) => {
    const host = { ...quiet, cpu: { ...quiet.cpu!, top: [{ pid: 123, comm: 'stress', cores }] } }
    expect(disturbances(host, launched)).toEqual(found)
  })

  it("does not count CPU use for a target attached by url: its engine's processes are not told apart", () => {
    const host = { ...quiet, cpu: { ...quiet.cpu!, top: [{ pid: 123, comm: 'llama-server', cores: 3.9 }] } }
    expect(disturbances(host, { ...launched, countCpu: false })).toEqual([])
  })

  it.each([
    [256, ['256 pages swapped in during the round']],
    [255, []],
  ])('swap: %i pages in', (inPages, found) => {
    expect(disturbances({ ...quiet, swap: { usedBytes: GIB, inPages, outPages: 0 } }, launched)).toEqual(found)
  })

  it.each([
    [3 * GIB, ['available memory fell to 3GiB, under the memory floor of 4GiB']],
    [4 * GIB, []],
  ])('memory: lowest %d bytes against a 4GiB floor', (minBytes, found) => {
    const host = { ...quiet, memory: { beforeBytes: 60 * GIB, afterBytes: 60 * GIB, minBytes } }
    expect(disturbances(host, launched)).toEqual(found)
    expect(disturbances(host, { ...launched, floorBytes: undefined })).toEqual([])
  })

  it('counts a new GPU process on the target GPUs, not an allowed one nor one on another GPU', () => {
    const host: RoundHost = {
      ...quiet,
      gpuProcesses: [
        { pid: 5, name: 'python', gpu: 0 },
        { pid: 6, name: 'ollama', gpu: 0, allowed: true },
        { pid: 7, name: 'train', gpu: 1, outside: true },
      ],
    }
    expect(disturbances(host, launched)).toEqual(['GPU process python (pid 5) appeared on GPU 0'])
  })
})

describe('ownedBy', () => {
  const procs = new Map([
    [100, { ppid: 1, pgrp: 100 }], // this process
    [101, { ppid: 100, pgrp: 101 }], // a child in a group of its own
    [102, { ppid: 101, pgrp: 101 }], // its grandchild
    [200, { ppid: 1, pgrp: 200 }], // the engine, reparented: its group is one this run launched
    [201, { ppid: 200, pgrp: 200 }],
    [300, { ppid: 1, pgrp: 300 }], // a stranger
    [301, { ppid: 300, pgrp: 300 }],
  ])
  it('is this process, its descendants and the groups this run launched; nothing else', () => {
    const ours = ownedBy(procs, 100, new Set([200]))
    expect([100, 101, 102, 200, 201].map(ours)).toEqual([true, true, true, true, true])
    expect([300, 301, 1, 999].map(ours)).toEqual([false, false, false, false])
  })
})

describe('verdict.disturbed', () => {
  const host = (disturbed?: string[]): RoundHost => ({ samples: 2, ...(disturbed && { disturbed }) })
  const measured = (label: string) => {
    const c = cell('t/s', [round(0, false, { decode: 10, ttft: 5 }), round(1, true, { decode: 10, ttft: 5 })])
    c.rounds[0].host = host([`${label} in a discarded round`])
    c.rounds[1].host = host([label])
    return c
  }

  it('names the steady rounds by number, re-measurements apart, and leaves discarded rounds out', () => {
    expect(disturbedRounds([measured('a'), measured('b')])).toEqual(['round 2: a', 're-measurement 1, round 2: b'])
  })

  /** A steady round's host as the watch records it: `quiet` with `change` applied, judged by the rule. */
  const hostWith = (change: Partial<RoundHost>): RoundHost => {
    const h = { ...quiet, ...change }
    return { ...h, disturbed: disturbances(h, launched) }
  }
  const rounds = (...hosts: RoundHost[]) => {
    const c = cell('t/s', [round(0, false), ...hosts.map((_, i) => round(i + 1, true))])
    hosts.forEach((h, i) => (c.rounds[i + 1].host = h))
    return c
  }
  const busy = (pid: number, comm: string, cores: number) => ({
    cpu: { busy: 0.9, cores: 8, top: [{ pid, comm, cores }] },
  })

  it('says a thing that disturbed several rounds once, with the rounds and its worst round', () => {
    const stress = [0.6, 0.98, 0.7, 0.55].map((cores) => hostWith(busy(123, 'stress', cores)))
    expect(disturbedRounds([rounds(...stress)])).toEqual([
      'rounds 2–5, at worst: stress (pid 123) used 98 % of a core during the round',
    ])
    // A calm round in the middle splits the list; another process, and swap, are entries of their own.
    const swap = (inPages: number) => ({ swap: { usedBytes: GIB, inPages, outPages: 0 } })
    const mixed = rounds(
      hostWith({ ...busy(123, 'stress', 0.9), ...swap(300) }),
      hostWith({}),
      hostWith({ ...busy(456, 'stress', 1.5), ...swap(4096) }),
      hostWith(busy(123, 'stress', 0.8)),
    )
    expect(disturbedRounds([mixed])).toEqual([
      'rounds 2, 5, at worst: stress (pid 123) used 90 % of a core during the round',
      'rounds 2, 4, at worst: 4,096 pages swapped in during the round',
      'round 4: stress (pid 456) used 1.5 cores during the round',
    ])
    // Memory under the floor: the least left is the worst.
    const low = (minBytes: number) => hostWith({ memory: { beforeBytes: 8 * GIB, afterBytes: 8 * GIB, minBytes } })
    expect(disturbedRounds([rounds(low(3 * GIB), low(GIB), low(2 * GIB))])).toEqual([
      'rounds 2–4, at worst: available memory fell to 1GiB, under the memory floor of 4GiB',
    ])
  })

  it('names the re-measurements apart within one entry, and counts what is past the cap', () => {
    const first = rounds(hostWith(busy(9, 'yes', 0.7)), hostWith(busy(9, 'yes', 0.8)))
    const again = rounds(hostWith({}), hostWith(busy(9, 'yes', 0.99)))
    expect(disturbedRounds([first, again])).toEqual([
      'rounds 2–3; re-measurement 1, round 3, at worst: yes (pid 9) used 99 % of a core during the round',
    ])
    const many = rounds(...Array.from({ length: 14 }, (_, i) => hostWith(busy(1000 + i, 'job', 0.8))))
    const said = disturbedRounds([many])
    expect(said).toHaveLength(12)
    expect(said[0]).toBe('round 2: job (pid 1000) used 80 % of a core during the round')
    expect(said[11]).toBe('… and 3 more')
  })

  it('is set on the judged cell, kept where its rounds are gone, and absent on a quiet box', () => {
    const judged = withDisturbed(measured('a'), [measured('a')])
    expect(judged.verdict.disturbed).toEqual(['round 2: a'])
    expect(
      withDisturbed(judged, [judged], ['round 2: a', 're-measurement 1, round 2: b']).verdict.disturbed,
    ).toHaveLength(2)
    const calm = cell('t/s', [round(0, true, { decode: 10, ttft: 5 })])
    expect(withDisturbed(calm, [calm]).verdict.disturbed).toBeUndefined()
  })
})
