/**
 * `prompts: text` against the real llama.cpp server with its draft model, through the bundled CLI: one cell of
 * word-list prompts and one of text prompts on the same server, and a chat cell of text prompts (whose template
 * `/tokenize` does not see). Every request of every round has exactly the input length as the server counts it
 * (usage `prompt_tokens`), both spec cells drafted, and the test prints the acceptance of each: the tiny random
 * draft model accepts anywhere from 0 to 100 % of a prompt's drafts, so the figures are reported, not asserted.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CellResult, ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const serve = (extra = '') =>
  `'${llama.server}' -m '${llama.model}' --port {port} -c 4096 -np 2 --metrics ${extra}`.trim()
const DRAFT = `-md '${llama.draft}' --spec-type draft-simple --spec-draft-n-max 8 --poll 0`
const INPUT = 256
const OUTPUT = 48
const REQUESTS = 4
// A few minutes on an idle 2-core runner; generous for a shared one (a random draft can slow decoding a lot).
const LIMIT_MS = 540_000

/** Every request of every round at the input length, none failed. */
function exact(cell: CellResult): void {
  expect([cell.id, cell.status, cell.error, cell.flags]).toEqual([cell.id, 'ok', null, []])
  for (const round of cell.rounds) {
    const at = `${cell.id} round ${round.index}`
    expect([round.requests, round.errors], at).toEqual([REQUESTS, 0])
    expect(round.achieved.promptTokens, at).toEqual({ min: INPUT, max: INPUT })
    expect(round.achieved.outputTokens, at).toEqual({ min: OUTPUT, max: OUTPUT })
  }
}

describe('prompts: text on llama-server with a draft model', () => {
  it(
    'word-list and text cells both have exact lengths and both draft; the acceptance of each is printed',
    async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'lbg-real-text-'))
      await writeFile(
        join(cwd, 'bench.yml'),
        [
          'version: 1',
          'hardware: real-llamacpp',
          'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 60s, request-timeout: 120s, quality: false, max-error-share: 0% }',
          'scenarios:',
          `  syn: { input-tokens: ${INPUT}, output-tokens: ${OUTPUT}, concurrency: 1, requests: ${REQUESTS} }`,
          `  text: { input-tokens: ${INPUT}, output-tokens: ${OUTPUT}, concurrency: 1, requests: ${REQUESTS}, prompts: text }`,
          'targets:',
          `  spec: { engine: llamacpp, launch: ${JSON.stringify(serve(DRAFT))} }`,
          `  chat: { engine: llamacpp, api: chat, scenarios: [text], launch: ${JSON.stringify(serve())} }`,
          '',
        ].join('\n'),
      )
      const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: LIMIT_MS })
      expect(run.code, run.stdout + run.stderr).toBe(0)
      const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
      const cells = new Map(results.cells.map((c) => [c.id, c]))
      expect([...cells.keys()].sort()).toEqual(['chat/text', 'spec/syn', 'spec/text'])
      for (const cell of cells.values()) exact(cell)
      expect(cells.get('spec/syn')?.workload.prompts).toBeUndefined()
      expect(cells.get('spec/text')?.workload.prompts).toBe('text')
      expect(cells.get('chat/text')?.workload.prompts).toBe('text')
      const lines = ['| cell | prompts | drafted | accepted | acceptance rate | accept length | decode tok/s |']
      lines.push('|---|---|---|---|---|---|---|')
      for (const id of ['spec/syn', 'spec/text']) {
        const cell = cells.get(id)!
        const s = cell.specDecode
        expect(s?.draftTokens, `${id} drafted`).toBeGreaterThan(0)
        const rate = s?.acceptanceRate
        lines.push(
          `| ${id} | ${cell.workload.prompts ?? 'synthetic'} | ${s?.draftTokens} | ${s?.acceptedTokens} | ${rate === undefined ? '?' : (100 * rate).toFixed(1) + ' %'} | ${cell.metrics?.accept_length?.toFixed(3)} | ${cell.metrics?.decode_tps.mean.toFixed(1)} |`,
        )
      }
      console.log(lines.join('\n'))
    },
    LIMIT_MS + 10_000,
  )
})
