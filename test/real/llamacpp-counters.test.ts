/**
 * `rounds[].server` against the requests the gate sent, on the real llama.cpp server run through the bundled
 * CLI. The server counts exactly (llama.cpp `tools/server/server-task.cpp`, `to_metrics`), and a request's
 * counts are added in the same step of the server's loop that sends its final event, before any later
 * `/metrics` is answered, so every steady round's deltas equal, as integers:
 * - Δ`tokens_predicted_total`: the round's output tokens as the gate counted them (usage `completion_tokens`);
 * - Δ`prompt_tokens_total` + Δ`prompt_tokens_cached_total`: requests × the calibrated prompt length; the gate
 *   sends `cache_prompt: false`, so nothing comes from a slot's cache (Δcached 0). With the server's default
 *   (`cache_prompt: true`) the unique prompts still share their first tokens: measured, 2 of 32 per completions
 *   request and 11 of 33 per chat request (the template's head) came from the cache;
 * - with a draft model, Δ`spec_decode_num_draft_tokens_total` and Δ`..._accepted_tokens_total` summed over the
 *   steady rounds: the cell's `specDecode`, which sums the requests' own `timings.draft_n` / `draft_n_accepted`.
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
  `'${llama.server}' -m '${llama.model}' --port {port} -c 4096 -np 4 --metrics ${extra}`.trim()
const DRAFT = `-md '${llama.draft}' --spec-type draft-simple --spec-draft-n-max 8 --poll 0`
const INPUT = 32
const OUTPUT = 32
const CONCURRENCY = 2
const REQUESTS = 4
// Under a minute on an idle 2-core runner; generous for a machine shared with other jobs (a random draft model
// can slow decoding to ~5 tok/s).
const LIMIT_MS = 480_000

const PREDICTED = 'llamacpp:tokens_predicted_total'
const PROMPT = 'llamacpp:prompt_tokens_total'
const CACHED = 'llamacpp:prompt_tokens_cached_total'
const DRAFTED = 'llamacpp:spec_decode_num_draft_tokens_total'
const ACCEPTED = 'llamacpp:spec_decode_num_accepted_tokens_total'

interface Row {
  cell: string
  round: number
  gateOutput: number
  predicted: number
  gatePrompt: number
  evaluated: number
  cached: number
  drafted: number
  accepted: number
  decodes: number
}

/** Each steady round's gate counts beside the server's deltas; the round's own shape is checked first. */
function rows(cell: CellResult): Row[] {
  expect([cell.id, cell.status, cell.error]).toEqual([cell.id, 'ok', null])
  const steady = cell.rounds.filter((r) => r.steady)
  expect(steady.map((r) => r.index)).toEqual([1, 2])
  return steady.map((round) => {
    const at = `${cell.id} round ${round.index}`
    expect([round.requests, round.errors, round.retried], at).toEqual([REQUESTS, 0, undefined])
    // Every request has the same lengths, so the round's totals are exact; its throughput says the same.
    const prompt = round.achieved.promptTokens
    expect(prompt.max, `${at}: one calibrated prompt length`).toBe(prompt.min)
    expect(round.achieved.outputTokens, at).toEqual({ min: OUTPUT, max: OUTPUT })
    const gateOutput = (round.requests - round.errors) * round.achieved.outputTokens.min
    expect(Math.round((round.metrics.output_tps * round.durationMs) / 1000), at).toBe(gateOutput)
    const d = round.server?.deltas
    expect(d, `${at}: rounds[].server`).toBeDefined()
    return {
      cell: cell.id,
      round: round.index,
      gateOutput,
      predicted: d![PREDICTED],
      gatePrompt: round.requests * prompt.min,
      evaluated: d![PROMPT],
      cached: d![CACHED],
      drafted: d![DRAFTED],
      accepted: d![ACCEPTED],
      decodes: d!['llamacpp:n_decode_total'],
    }
  })
}

describe('llama-server /metrics per round against the requests the gate sent', () => {
  it(
    'token counters equal the gate counts every steady round; draft counters equal the cell spec decode',
    async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'lbg-real-counters-'))
      await writeFile(
        join(cwd, 'bench.yml'),
        [
          'version: 1',
          'hardware: real-llamacpp',
          'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 60s, request-timeout: 60s, quality: false, max-error-share: 0% }',
          'scenarios:',
          `  c2: { input-tokens: ${INPUT}, output-tokens: ${OUTPUT}, concurrency: ${CONCURRENCY}, requests: ${REQUESTS} }`,
          'targets:',
          `  comp: { engine: llamacpp, launch: ${JSON.stringify(serve())} }`,
          `  chat: { engine: llamacpp, api: chat, launch: ${JSON.stringify(serve())} }`,
          `  spec: { engine: llamacpp, launch: ${JSON.stringify(serve(DRAFT))} }`,
          '',
        ].join('\n'),
      )
      const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: LIMIT_MS })
      expect(run.code, run.stdout + run.stderr).toBe(0)
      const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
      const cells = new Map(results.cells.map((c) => [c.id, c]))
      expect([...cells.keys()].sort()).toEqual(['chat/c2', 'comp/c2', 'spec/c2'])
      const table = [...cells.values()].flatMap(rows)
      console.log(
        [
          '| cell | round | gate output | Δpredicted | gate prompt | Δprompt | Δcached | Δdraft | Δaccepted | Δdecode calls |',
          '|---|---|---|---|---|---|---|---|---|---|',
          ...table.map(
            (r) =>
              `| ${r.cell} | ${r.round} | ${r.gateOutput} | ${r.predicted} | ${r.gatePrompt} | ${r.evaluated} | ${r.cached} | ${r.drafted} | ${r.accepted} | ${r.decodes} |`,
          ),
        ].join('\n'),
      )
      for (const r of table) {
        const at = `${r.cell} round ${r.round}`
        expect(r.predicted, `${at}: Δ${PREDICTED}`).toBe(r.gateOutput)
        expect(r.evaluated + r.cached, `${at}: Δ${PROMPT} + Δ${CACHED}`).toBe(r.gatePrompt)
        expect(r.cached, `${at}: cache_prompt false`).toBe(0)
        expect(r.decodes, `${at}: decode calls`).toBeGreaterThan(0)
      }
      for (const id of ['comp/c2', 'chat/c2']) {
        expect(table.filter((r) => r.cell === id).map((r) => [r.drafted, r.accepted])).toEqual([
          [0, 0],
          [0, 0],
        ])
        expect(cells.get(id)?.specDecode).toBeUndefined()
      }
      const spec = cells.get('spec/c2')!
      const sum = (pick: (r: Row) => number) =>
        table.filter((r) => r.cell === 'spec/c2').reduce((s, r) => s + pick(r), 0)
      const drafted = sum((r) => r.drafted)
      const accepted = sum((r) => r.accepted)
      console.log(
        `spec decode: cell ${spec.specDecode?.acceptedTokens}/${spec.specDecode?.draftTokens}, /metrics ${accepted}/${drafted}`,
      )
      expect(drafted).toBeGreaterThan(0)
      expect(spec.specDecode).toMatchObject({ draftTokens: drafted, acceptedTokens: accepted })
      for (const round of spec.rounds.filter((r) => r.steady)) {
        const d = round.server!.deltas
        expect(round.server?.rates?.spec_acceptance_rate).toBe(d[ACCEPTED] / d[DRAFTED])
        // The round's acceptance length is the counters' 1 + accepted / drafts (vLLM's formula) …
        const drafts = d['llamacpp:spec_decode_num_drafts_total']
        expect(round.metrics.accept_length, `round ${round.index}: accept_length`).toBe(1 + d[ACCEPTED] / drafts)
        expect((1000 * round.metrics.accept_length!) / round.metrics.step_ms!).toBeCloseTo(
          round.metrics.decode_tps.mean,
          6,
        )
        // … and the timings' own count agrees: a request's steps after its first token are (tokens − 1) − accepted,
        // of which all but at most one drafted (a step with nothing left to draft for), so the round's steps lie
        // between the counted drafts and drafts + requests.
        const steps = round.requests * (OUTPUT - 1) - d[ACCEPTED]
        console.log(`round ${round.index}: ${drafts} drafts counted, ${steps} steps from the timings`)
        expect(steps).toBeGreaterThanOrEqual(drafts)
        expect(steps).toBeLessThanOrEqual(drafts + round.requests)
      }
      expect(cells.get('comp/c2')?.metrics?.accept_length).toBeUndefined()
    },
    LIMIT_MS + 10_000,
  )
})
