import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import { fileStore } from '../../src/store/index.js'
import { storedCell, storedResults } from '../helpers/builders.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-store-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('fileStore', () => {
  it('loads a results file as the baseline, its rounds as one history entry', async () => {
    const run = {
      ...storedResults('f00d', '2025-03-01T00:00:00Z', [
        storedCell('t/a', [
          { decode: 50, ttft: 300 },
          { decode: 40, ttft: 400 },
        ]),
      ]),
    }
    run.run.hardware = 'nvidia-gb10'
    const path = join(dir, 'baseline.json')
    await writeFile(path, JSON.stringify(run))
    const loaded = await fileStore(path).load('nvidia-gb10')
    expect(loaded.view.results).toEqual(run)
    expect(loaded.view.history).toHaveLength(1)
    expect(loaded.view.history[0].cells['t/a']['decode_tps.p99']).toEqual({ steady: 48, rounds: [53, 43] })
    expect(loaded.ref).toEqual({
      sha: 'f00d',
      hardware: 'nvidia-gb10',
      source: `file ${path}`,
      runUrl: run.run.runUrl,
      date: '2025-03-01T00:00:00Z',
      samples: 1,
    })
  })

  it.each([
    ['a missing file', undefined, 'baseline-file: cannot read'],
    ['invalid JSON', '{', 'not valid JSON'],
    ['another schema', '{"schema":"x"}', 'schema is "x"'],
  ])('rejects %s with a ConfigError naming the file', async (_, text, message) => {
    const path = join(dir, 'b.json')
    if (text !== undefined) await writeFile(path, text)
    const error = await fileStore(path)
      .load('cpu')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain(message)
    expect((error as Error).message).toContain(path)
  })

  it('is read-only', async () => {
    const path = join(dir, 'b.json')
    await expect(fileStore(path).save('cpu', storedResults('x', '2025-03-01T00:00:00Z', []), {})).rejects.toThrow(
      `baseline-file ${path} is read-only`,
    )
  })
})
