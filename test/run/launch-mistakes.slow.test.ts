/**
 * Mistakes that cost seconds: a matrix file that cannot be read writes nothing (not even the results folder), from
 * the pipeline and from the CLI's `run`; a missing model file fails its cells before anything is launched, naming it.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/main.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-mistakes-'))
})
afterEach(() => vi.restoreAllMocks())
const pipeline = inProcessPipeline(() => cwd)

describe('a matrix file that cannot be read', () => {
  it('ends the pipeline with a configuration error naming the file, and writes nothing', async () => {
    const result = await pipeline({ config: 'bench.yaml', resultsDir: 'out' })
    expect(result).toMatchObject({ verdict: 'error', configError: true, resultsFile: '', reportFile: '' })
    expect(result.failure).toBe(`config: ${join(cwd, 'bench.yaml')} does not exist`)
    expect(result.summary).toContain('configuration error')
    expect(existsSync(join(cwd, 'out'))).toBe(false)
  })

  it('makes `run` exit 2 naming the file, with no results folder', async () => {
    const written: string[] = []
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true))
    const out = join(cwd, 'cli-out')
    const code = await main(['run', '--config', join(cwd, 'typo.yml'), '--out', out])
    expect(code).toBe(2)
    expect(written.join('')).toContain(`failed: config: ${join(cwd, 'typo.yml')} does not exist`)
    expect(written.join('')).not.toMatch(/^results:/m)
    expect(existsSync(out)).toBe(false)
  })
})

describe('a missing model file', () => {
  it("fails the target's cells before launching, naming the path, without waiting for ready-timeout", async () => {
    await writeFile(
      join(cwd, 'model.yml'),
      [
        'version: 1',
        'defaults: { ready-timeout: 20m, quality: false }',
        'scenarios:',
        '  one: { input-tokens: 16, output-tokens: 16, concurrency: 1 }',
        'targets:',
        '  llama: { engine: llamacpp, launch: "llama-server -m ./models/q4.gguf --port {port}" }',
        '',
      ].join('\n'),
    )
    const started = Date.now()
    const result = await pipeline({ config: 'model.yml', resultsDir: 'model-out' })
    expect(Date.now() - started).toBeLessThan(60_000)
    const [cell] = (await readResultsFile(result.resultsFile)).cells
    expect(cell.status).toBe('error')
    expect(cell.error).toContain(
      // The launch runs in the process's working folder (the target's workdir for a base arm): the path is resolved there.
      `targets.llama.launch: model file ./models/q4.gguf (${join(process.cwd(), 'models/q4.gguf')} on this machine) does not exist on this machine; nothing was launched`,
    )
  })
})
