/**
 * How ingest scales with the size of a result file: `--append-result` files of 10k, 20k and 40k runs and
 * `--save-detailed` files of 50k and 150k requests, read and turned into cells in this process. Prints the
 * time for each; linear reading doubles the time when the file doubles.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ingestFiles, type RequestOptions } from '../src/ingest/index.js'
import { detailedVllmResult } from '../harness/ingest-files.js'

const dir = mkdtempSync(join(tmpdir(), 'lbg-bench-ingest-'))
const line = readFileSync(join(import.meta.dirname, '../fixtures/ingest/vllm-append-result.jsonl'), 'utf8')
  .trim()
  .split('\n')[0]

async function time(label: string, file: string, request: RequestOptions = {}): Promise<void> {
  const started = performance.now()
  const cells = await ingestFiles('vllm', [file], request)
  const ms = performance.now() - started
  console.log(
    `${label.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  (${cells.length} cell, ${cells[0].rounds.length} rounds)`,
  )
}

for (const runs of [10_000, 20_000, 40_000]) {
  const file = join(dir, `append-${runs}.jsonl`)
  writeFileSync(file, `${line}\n`.repeat(runs))
  // The recorded lines asked for 1024 → 256 tokens and do not say so; the detailed file's metadata says its own.
  await time(`--append-result, ${runs} runs`, file, { inputTokens: 1024, outputTokens: 256 })
}
for (const requests of [50_000, 150_000]) {
  const file = join(dir, `detailed-${requests}.json`)
  writeFileSync(file, JSON.stringify(detailedVllmResult(requests)))
  await time(`--save-detailed, ${requests} requests`, file)
}
