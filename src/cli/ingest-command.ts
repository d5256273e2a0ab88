/** `llm-bench-gate ingest`: other tools' result files → one results file (stdout, or `--out FILE`). */
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { RunContext } from '../run/context.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import { printable } from '../core/log.js'
import { RESULTS_SCHEMA, type ResultsFile } from '../core/results.js'
import { VERSION } from '../core/version.js'
import { INGEST_FORMAT_NAMES, ingestFiles } from '../ingest/index.js'

export const INGEST_HELP = `Usage: llm-bench-gate ingest --format ${INGEST_FORMAT_NAMES.join('|')} FILE… [--out FILE]

Reads other benchmark tools' result files and writes one llm-bench-gate results file (to stdout without
--out): vllm (vllm bench serve --save-result or --append-result), sglang (bench_serving --output-file),
llama-bench (-o json or -o jsonl), guidellm (benchmarks.json), aiperf (profile_export_aiperf.json, or
GenAI-Perf's profile_export_genai_perf.json). Runs of the same workload, from one file or several, become the
rounds of one cell. Each cell lists under ingested.unmapped what the tool does not report. Compare two such
files with 'llm-bench-gate compare'. Exits 2 on a file that is not of the format, naming the file and line.`

/** The results file of ingested cells; the run's identity comes from the working copy. */
export async function ingestResults(
  format: string,
  files: readonly string[],
  context: RunContext,
): Promise<ResultsFile> {
  const cells = await ingestFiles(format, files)
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
    if (values.help) {
      process.stdout.write(INGEST_HELP + '\n')
      return 0
    }
    if (!values.format) throw new ConfigError([`--format: missing (one of ${INGEST_FORMAT_NAMES.join(', ')})`])
    const text = JSON.stringify(await ingestResults(values.format, positionals, context()), null, 2) + '\n'
    if (values.out) await writeFile(values.out, text)
    else process.stdout.write(text)
    return 0
  } catch (error) {
    process.stderr.write(`error: ${printable(errorMessage(error))}\n`)
    return error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1
  }
}
