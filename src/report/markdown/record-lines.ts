/**
 * A cell's lines about how it was measured, under its rounds: a prefix cache that was not emptied before its cold
 * round (and why: the engine offers no reset, or the status it answered), and links to its per-request record,
 * `requests.jsonl` and `trace.json` (a Chrome/Perfetto trace), relative to the results folder that `report.md`
 * lies in and the workflow uploads.
 */
import type { CellResult } from '../../core/results.js'
import { plural } from '../../core/format.js'
import { clip, escapeText } from '../escape.js'

/** A folder the run writes (`requests/<target>/<scenario>`): anything else read back from a file gets no link. */
const RECORD_DIR = /^requests(\/[A-Za-z0-9][A-Za-z0-9._@-]*)+$/

function recordLinks(c: CellResult): string | undefined {
  const files = c.requestFiles
  if (!files || !RECORD_DIR.test(files.dir)) return undefined
  const dir = files.dir.split('/').map(encodeURIComponent).join('/')
  const omitted = files.omitted ? `, ${files.omitted} more left out` : ''
  return `- ${plural(files.requests, 'request')} recorded${omitted}: [requests.jsonl](${dir}/requests.jsonl) · [trace.json](${dir}/trace.json) (opens in ui.perfetto.dev), in the results folder`
}

/** The cell's prefix-cache and per-request-record lines; undefined when there is nothing to say. */
export function recordLines(c: CellResult): string | undefined {
  const reset = c.prefixCacheReset
  const lines = [
    reset && !reset.reset
      ? `- prefix cache not reset before the cold round: ${escapeText(clip(reset.reason ?? 'no reason given', 300))}`
      : undefined,
    recordLinks(c),
  ].filter(Boolean)
  return lines.length ? lines.join('\n') : undefined
}
