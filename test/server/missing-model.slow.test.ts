/**
 * A launch naming a local model file this machine lacks fails at once, before anything is spawned, naming the
 * field and the path (rather than spending `ready-timeout` on an engine that cannot load it).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { StartError } from '../../src/core/errors.js'
import { engineByName } from '../../src/engines/registry.js'
import { startTarget } from '../../src/server/index.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { targetPlan } from './target.js'

const logDir = mkdtempSync(join(tmpdir(), 'missing-model-'))
afterAll(() => rmSync(logDir, { recursive: true, force: true }))

describe('a missing model file', () => {
  it('fails the launch before the spawn, naming the field and the path', async () => {
    const spawned: number[] = []
    const started = Date.now()
    const error = await startTarget({
      target: targetPlan({
        engine: 'llamacpp',
        launch: 'llama-server -m /nonexistent/models/q4.gguf --port {port}',
        readyTimeoutMs: 600_000,
      }),
      adapter: engineByName('llamacpp'),
      logDir,
      log: memoryLogger(),
      smoke: async () => undefined,
      onSpawn: (pgid) => spawned.push(pgid),
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StartError)
    expect((error as StartError).kind).toBe('spawn')
    expect((error as StartError).message).toBe(
      'fake-target: targets.fake-target.launch: model file /nonexistent/models/q4.gguf does not exist on this machine; nothing was launched',
    )
    expect(spawned).toEqual([])
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
