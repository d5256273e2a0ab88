/**
 * `llm-bench-gate ingest`: other benchmark tools' result files → a results file whose cells carry our metric
 * definitions, so the gate, the store, the comment and the dashboard work on their numbers. One file per tool
 * maps its keys (the tool's source is cited there); `cells.ts` turns runs into cells and rounds, and each cell
 * says under `ingested.unmapped` what of our definitions the tool could not give.
 */
import { ConfigError, errorMessage } from '../core/errors.js'
import { INGEST_FORMAT_NAMES, type IngestFormatName } from '../core/ingest-formats.js'
import type { CellResult } from '../core/results.js'
import { aiperf } from './aiperf.js'
import { ingestedCells } from './cells.js'
import { guidellm } from './guidellm.js'
import { llamaBench } from './llama-bench.js'
import { readDocuments } from './read.js'
import { sglang } from './sglang.js'
import { placeRuns, type RequestOptions } from './requested.js'
import type { IngestFormat, ToolRun } from './types.js'
import { vllm } from './vllm.js'
import { readRegularFile } from '../io/safe-fs.js'

export { INGESTED_ENGINE, ONE_ROUND, ingestedCells } from './cells.js'
export type { IngestedRun, ToolRun } from './types.js'
export type { RequestOptions } from './requested.js'

/** One reader per format name (the names are in core/, for the matrix file's `format` key). */
export const INGEST_FORMATS: Readonly<Record<IngestFormatName, IngestFormat>> = {
  vllm,
  sglang,
  'llama-bench': llamaBench,
  guidellm,
  aiperf,
}
export { INGEST_FORMAT_NAMES }

export function ingestFormat(name: string): IngestFormat {
  const format = (INGEST_FORMATS as Record<string, IngestFormat | undefined>)[name]
  if (!format) throw new ConfigError([`--format: "${name}" is not one of ${INGEST_FORMAT_NAMES.join(', ')}`])
  return format
}

/** The runs one file's text holds, as the tool recorded them; `file` names it in messages. */
export function ingestText(format: IngestFormat, text: string, file: string): ToolRun[] {
  return format.parse(readDocuments(text, file, format.noun))
}

/**
 * Reads every file (all of one tool) into cells: runs asked for the same workload, from any file, are rounds of one
 * cell; `request` says what the files do not record of the request (requested.ts).
 */
export async function ingestFiles(
  formatName: string,
  files: readonly string[],
  request: RequestOptions = {},
): Promise<CellResult[]> {
  const format = ingestFormat(formatName)
  if (!files.length) throw new ConfigError(['ingest: expected at least one result file'])
  const runs: ToolRun[] = []
  for (const file of files) {
    let text: string
    try {
      text = await readRegularFile(file)
    } catch (error) {
      throw new ConfigError([`${file}: cannot read (${errorMessage(error)})`])
    }
    for (const run of ingestText(format, text, file)) runs.push(run)
  }
  return ingestedCells(format.name, placeRuns(format, runs, request))
}
