/**
 * Launch mistakes on the real llama-server cost seconds, not `ready-timeout`: a launch with its own `--port` is
 * refused by `validate`, naming the key; with the check bypassed (a url with a literal port) the run fails within
 * 30 s naming the server's "listening on" line; a model file that is not there is quoted from the server's own
 * "No such file or directory" line rather than its last words ("exiting due to model loading error").
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/main.js'
import { pickFreePort } from '../../src/server/ports.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
// The run with the mistake must end well inside this, against a ready-timeout of 20 minutes.
const FAST_MS = 30_000

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-real-mistakes-'))
})
afterEach(() => vi.restoreAllMocks())
const pipeline = inProcessPipeline(() => cwd)

async function config(name: string, target: string): Promise<string> {
  await writeFile(
    join(cwd, name),
    [
      'version: 1',
      'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 20m, request-timeout: 60s, quality: false }',
      'scenarios:',
      '  one: { input-tokens: 16, output-tokens: 4, concurrency: 1, requests: 1 }',
      'targets:',
      `  llama: ${target}`,
      '',
    ].join('\n'),
  )
  return name
}

describe('launch mistakes on the real llama-server', () => {
  it('--port copied into the launch: validate exits 2 naming the key; bypassed, the run fails naming the line', async () => {
    const [polled, other] = [await pickFreePort(), await pickFreePort()]
    const launch = `'${llama.server}' -m '${llama.model}' -c 512 --port ${other}`
    const written: string[] = []
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true))
    const refused = await config('refused.yml', `{ engine: llamacpp, launch: ${JSON.stringify(launch)} }`)
    expect(await main(['validate', '--config', join(cwd, refused)])).toBe(2)
    expect(written.join('')).toContain(`targets.llama.launch: passes --port ${other} and no {port}`)
    vi.restoreAllMocks()

    const bypassed = await config(
      'bypassed.yml',
      `{ engine: llamacpp, url: "http://127.0.0.1:${polled}", launch: ${JSON.stringify(launch)} }`,
    )
    const started = Date.now()
    const result = await pipeline({ config: bypassed, resultsDir: 'bypassed' })
    const took = Date.now() - started
    const [cell] = (await readResultsFile(result.resultsFile)).cells
    expect(cell.status).toBe('error')
    expect(cell.error).toContain(`http://127.0.0.1:${polled} refused connections for`)
    expect(cell.error).toMatch(new RegExp(`listens elsewhere: .*listening on http://127\\.0\\.0\\.1:${other}`))
    expect(took).toBeLessThan(FAST_MS)
  })

  it('a model file that is not there: the error quotes the line naming it', async () => {
    const missing = join(cwd, 'gone', 'tiny.gguf')
    // Through a variable, as a wrapper script would pass it: the check before launch cannot see it, the server can.
    const target = `{ engine: llamacpp, env: { MODEL: ${JSON.stringify(missing)} }, launch: ${JSON.stringify(`'${llama.server}' -m "$MODEL" -c 512 --port {port}`)} }`
    const result = await pipeline({ config: await config('missing.yml', target), resultsDir: 'missing' })
    const [cell] = (await readResultsFile(result.resultsFile)).cells
    expect(cell.status).toBe('error')
    expect(cell.error).toMatch(
      new RegExp(
        `log says: .*failed to open GGUF file '${missing.replace(/[.]/g, '\\.')}' \\(No such file or directory\\)`,
      ),
    )
    expect(cell.error).toContain('last log line:')
    // The folded lines hold the telling one and the server's very last words: the stop waits for the output to
    // end once the group is gone (DRAIN_WAIT_MS, server/start.ts), so the line printed after "cleaning up before
    // exit..." is there too.
    expect(cell.info?.logTail).toContain('(No such file or directory)')
    expect(cell.info?.logTail).toContain('cleaning up before exit')
    expect(cell.info?.logTail).toContain('exiting due to model loading error')
  })
})
