/** `llm-bench-gate ingest`: other tools' result files → one results file (stdout, or `--out FILE`). */
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { RunContext } from '../run/context.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import { printable } from '../core/log.js'
import { RESULTS_SCHEMA, type ResultsFile } from '../core/results.js'
import { VERSION } from '../core/version.js'
import { INGEST_FORMAT_NAMES, ingestFiles, type RequestOptions } from '../ingest/index.js'
import { checkReadBack } from '../store/index.js'

export const INGEST_HELP = `Usage: llm-bench-gate ingest --format ${INGEST_FORMAT_NAMES.join('|')} FILE… [--out FILE]
         [--input-tokens N --output-tokens N] [--scenario ID]

Reads other benchmark tools' result files and writes one llm-bench-gate results file (to stdout without
--out): vllm (vllm bench serve --save-result or --append-result), sglang (bench_serving --output-file),
llama-bench (-o json or -o jsonl), guidellm (benchmarks.json), aiperf (profile_export_aiperf.json, or
GenAI-Perf's profile_export_genai_perf.json). Runs asked for the same workload, from one file or several,
become the rounds of one cell, whose id is that request (in512-out128-c8), never the lengths achieved; a cell
whose achieved lengths miss the requested ones by over 1 % is flagged lengths-missed. Each cell lists under
ingested.unmapped what the tool does not report. Compare two such files with 'llm-bench-gate compare'.

  --input-tokens N, --output-tokens N   the requested lengths, for files that do not record them (vllm without
                                        --metadata random_input_len=N random_output_len=N)
  --scenario ID                         one scenario id for every run, in place of the one built from the request

Exits 2 on a file that is not of the format, naming the file and line, and on a file that does not record the
requested lengths when no option gives them.`

/** `--input-tokens 512`: a whole number of tokens above 0. */
function tokens(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
    throw new ConfigError([`${flag}: expected a whole number of tokens above 0, got ${JSON.stringify(raw)}`])
  return n
}

/** The results file of ingested cells; the run's identity comes from the working copy. */
export async function ingestResults(
  format: string,
  files: readonly string[],
  context: RunContext,
  request: RequestOptions = {},
): Promise<ResultsFile> {
  const cells = await ingestFiles(format, files, request)
  const now = new Date().toISOString()
  return {
    schema: RESULTS_SCHEMA,
    run: {
      sha: context.sha,
      ref: context.ref,
      event: 'ingest',
      runUrl: context.runUrl,
      startedAt: now,
      finishedAt: now,
      hardware: 'unknown',
      tool: { name: 'llm-bench-gate', version: VERSION },
    },
    cells,
  }
}

export async function ingestMain(args: string[], context: () => RunContext): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        out: { type: 'string' },
        scenario: { type: 'string' },
        'input-tokens': { type: 'string' },
        'output-tokens': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
    if (values.help) {
      process.stdout.write(INGEST_HELP + '\n')
      return 0
    }
    if (!values.format) throw new ConfigError([`--format: missing (one of ${INGEST_FORMAT_NAMES.join(', ')})`])
    const request: RequestOptions = {
      scenario: values.scenario,
      inputTokens: tokens('--input-tokens', values['input-tokens']),
      outputTokens: tokens('--output-tokens', values['output-tokens']),
    }
    const results = await ingestResults(values.format, positionals, context(), request)
    // Never write what `compare` or `baseline-file` could not read back.
    const text = checkReadBack(JSON.stringify(results, null, 2) + '\n', values.out ?? 'the ingested results', 'results')
    if (values.out) await writeFile(values.out, text)
    else process.stdout.write(text)
    return 0
  } catch (error) {
    process.stderr.write(`error: ${printable(errorMessage(error))}\n`)
    return error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1
  }
}
