/**
 * One target's life inside the pipeline, with real child processes: the memory guard killing a
 * target (injected memory reading) and an engine dying in the middle of a cell.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { runTarget } from '../../src/target-run/run-target.js'
import { ROOT } from '../helpers/root.js'
import { killGroupQuietly, psGroup } from '../server/procs.js'

const FAKE = join(ROOT, 'test/helpers/fake-engine.mjs')
const GIB = 1024 ** 3
const spawned: number[] = []
afterEach(() => {
  for (const pgid of spawned.splice(0)) killGroupQuietly(pgid)
})

function plan(launch: string) {
  return buildPlan(
    {
      version: 1,
      defaults: { rounds: 2, discard: 1, 'ready-timeout': '20s', 'request-timeout': '20s', 'memory-floor': '4GiB' },
      scenarios: {
        long: { 'input-tokens': 16, 'output-tokens': 300, concurrency: 2 },
        next: { 'input-tokens': 16, 'output-tokens': 8, concurrency: 1 },
      },
      targets: { t: { engine: 'vllm', launch } },
    },
    { configPath: 'bench.yml', resolvedPath: '/dev/null' },
  )
}

async function run(launch: string, readMemory?: () => Promise<{ availableBytes: number; totalBytes: number }>) {
  const p = plan(launch)
  const log = memoryLogger()
  const logDir = await mkdtemp(join(tmpdir(), 'lbg-rt-'))
  const cells = await runTarget(p.targets[0], p.cells, {
    log,
    logDir,
    signal: new AbortController().signal,
    seed: 1,
    onSpawn: (pgid) => spawned.push(pgid),
    readMemory,
  })
  return { cells, log }
}

describe('runTarget', () => {
  it('kills a target whose available memory falls under the floor and marks its cells', async () => {
    let reads = 0
    // Plenty of memory while loading, then 2 GiB left of 121 GiB: under the 4 GiB floor.
    const readMemory = async () => ({ availableBytes: ++reads > 2 ? 2 * GIB : 60 * GIB, totalBytes: 121 * GIB })
    const { cells, log } = await run(`node ${FAKE} --dialect vllm --port {port} --ttft-ms 20 --itl-ms 20`, readMemory)
    expect(cells.map((c) => c.status)).toEqual(['error', 'error'])
    for (const c of cells) expect(c.error).toMatch(/^memory guard: available memory 2GiB fell below the floor of 4GiB/)
    expect(log.lines.join('\n')).toMatch(/memory guard/)
    expect(spawned).toHaveLength(1)
    expect(psGroup(spawned[0])).toEqual([])
  })

  it('marks the running and the remaining cells as errors when the engine dies mid-cell', async () => {
    const { cells } = await run(
      `node ${FAKE} --dialect vllm --port {port} --ttft-ms 20 --itl-ms 20 --exit-after-ms 1500 --exit-code 137`,
    )
    expect(cells.map((c) => c.status)).toEqual(['error', 'error'])
    expect(cells[0].error).toMatch(/engine exited during measurement \(code 137/)
    expect(cells[1].error).toBe(cells[0].error)
    expect(cells[0].info.logTail).toBeTruthy()
    expect(psGroup(spawned[0])).toEqual([])
  })
})
