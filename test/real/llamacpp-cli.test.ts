/**
 * `llm-bench-gate run` (the bundled CLI) against the real llama.cpp server, launched as a normal
 * `engine: llamacpp` target: completions and chat at concurrency 1, 2 and 4 lose no request (the
 * server closes the connection after every stream while advertising keep-alive), readiness through
 * its 503 "Loading model", prompts calibrated to the exact length, usage from the server, and with
 * a draft model a spec-decode acceptance. Then Ctrl-C mid-stream leaves no llama-server behind.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'
import { interruptCliRun } from '../helpers/interrupt-cli.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const serve = (extra = '') =>
  `'${llama.server}' -m '${llama.model}' --port {port} -c 4096 -np 4 --metrics ${extra}`.trim()
// A few seconds on an idle 2-core runner; generous for a machine shared with other jobs.
const LIMIT_MS = 480_000
const DRAFT = `-md '${llama.draft}' --spec-type draft-simple --spec-draft-n-max 8 --poll 0`

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-real-cli-'))
})

async function config(name: string, lines: string[]): Promise<string> {
  await writeFile(join(cwd, name), ['version: 1', 'hardware: real-llamacpp', ...lines, ''].join('\n'))
  return name
}

/** Processes whose command line holds `marker`, other than the `ps` itself. */
function processesWith(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
  return out.split('\n').filter((line) => line.includes(marker) && !line.includes(' ps -eo'))
}

describe('llm-bench-gate run on the real llama-server', () => {
  it(
    'completions and chat at concurrency 1, 2 and 4: no failed request, exact prompt lengths, usage, spec decode',
    async () => {
      const file = await config('bench.yml', [
        'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 60s, request-timeout: 60s, quality: false, max-error-share: 0% }',
        'scenarios:',
        '  c1: { input-tokens: 64, output-tokens: 16, concurrency: 1, requests: 2 }',
        '  c2: { input-tokens: 64, output-tokens: 16, concurrency: 2, requests: 4 }',
        '  c4: { input-tokens: 64, output-tokens: 16, concurrency: 4, requests: 8 }',
        'targets:',
        `  comp: { engine: llamacpp, launch: ${JSON.stringify(serve())} }`,
        `  chat: { engine: llamacpp, api: chat, launch: ${JSON.stringify(serve())} }`,
        `  spec: { engine: llamacpp, launch: ${JSON.stringify(serve(DRAFT))}, scenarios: [c1] }`,
      ])
      const run = await runCli(['run', '--config', file, '--out', 'out'], { cwd, timeoutMs: LIMIT_MS })
      expect(run.code, run.stdout + run.stderr).toBe(0)
      const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
      const cells = results.cells.filter((c) => !c.id.startsWith('spec/'))
      expect(cells.map((c) => c.id).sort()).toEqual(['chat/c1', 'chat/c2', 'chat/c4', 'comp/c1', 'comp/c2', 'comp/c4'])
      for (const cell of results.cells) {
        const [round] = cell.rounds
        expect([cell.id, cell.status, cell.flags, round.errors, round.retried]).toEqual([
          cell.id,
          'ok',
          [],
          0,
          undefined,
        ])
        // Calibrated to the exact length as the server counts it (chat: its template included).
        expect(round.achieved.promptTokens).toEqual({ min: 64, max: 64 })
        expect(round.achieved.outputTokens).toEqual({ min: 16, max: 16 })
        expect(cell.info?.version).toMatch(/^b\d+-[0-9a-f]+$/)
      }
      expect(run.stderr + run.stdout).toMatch(/health endpoint ready after/)
      const spec = results.cells.find((c) => c.id === 'spec/c1')?.specDecode
      expect(spec?.draftTokens).toBeGreaterThan(0)
      expect(spec?.acceptanceRate).toBeGreaterThanOrEqual(0)
      expect(spec?.acceptanceRate).toBeLessThanOrEqual(1)
    },
    LIMIT_MS + 10_000,
  )

  it(
    'Ctrl-C mid-stream leaves no llama-server process and exits 130',
    async () => {
      const marker = `lbg-sigint-${process.pid}-${Date.now()}`
      const file = await config('sigint.yml', [
        'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 60s, request-timeout: 60s, quality: false }',
        'scenarios:',
        '  long: { input-tokens: 16, output-tokens: 3000, concurrency: 2, requests: 2 }',
        'targets:',
        `  llama: { engine: llamacpp, launch: ${JSON.stringify(serve(`--alias ${marker}`))} }`,
      ])
      // Past calibration and into the streams: 3,000 tokens take far longer than the 3 s before the signal.
      const run = await interruptCliRun({
        cwd,
        args: ['run', '--config', file, '--out', 'sigint'],
        signal: 'SIGINT',
        afterReadyMs: 3_000,
        limitMs: LIMIT_MS,
        inspect: () => processesWith(marker),
      })
      expect(run.code, run.output).toBe(130)
      expect(run.output).toContain('received SIGINT')
      expect(run.seen).toEqual([])
      expect(run.groupLeft).toBe(false)
    },
    LIMIT_MS + 10_000,
  )
})
