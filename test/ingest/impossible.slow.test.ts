/**
 * Figures no run can produce, in a tool's result file, through the bundled CLI's `ingest`: each is refused
 * naming the file and the field, instead of reading as a giant improvement (TPOT 1e-300 ms is a decode speed
 * of 1e303 tok/s) or as a figure that is simply absent (NaN).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/root.js'
import { runCli } from '../helpers/cli.js'

let cwd: string
let recorded: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-ingest-impossible-'))
  recorded = await readFile(join(ROOT, 'fixtures/ingest/vllm-save-result.json'), 'utf8')
})

/** The recorded file with one field's value replaced by `raw`, written as Python's json.dumps would. */
const withField = (key: string, raw: string) => recorded.replace(new RegExp(`("${key}": )[^,}\\n]+`), `$1${raw}`)

describe('ingest refuses impossible figures, naming the field', () => {
  it.each([
    ['mean_tpot_ms', '0', /`mean_tpot_ms`: 0 is not a time a request can take/],
    ['mean_tpot_ms', '-38.2', /`mean_tpot_ms`: -38.2 is below 0/],
    ['mean_tpot_ms', '1e-300', /`mean_tpot_ms`: 1e-300 is too small to be a measurement/],
    ['median_ttft_ms', 'NaN', /`median_ttft_ms`: NaN is not a measurement/],
    ['completed', '-1', /`completed`: -1 is below 0/],
  ])('%s: %s', async (key, raw, message) => {
    const text = withField(key, raw)
    expect(text).not.toBe(recorded)
    const file = `${key}-${raw}.json`
    await writeFile(join(cwd, file), text)
    const run = await runCli(['ingest', '--format', 'vllm', file], { cwd })
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain(`${file}:1`)
    expect(run.stderr).toMatch(message)
  })

  it('the recorded file itself still reads', async () => {
    const run = await runCli(['ingest', '--format', 'vllm', join(ROOT, 'fixtures/ingest/vllm-save-result.json')], {
      cwd,
    })
    expect(run.code, run.stderr).toBe(0)
  })
})
