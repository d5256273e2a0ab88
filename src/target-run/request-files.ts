/**
 * The per-request record of a cell's steady rounds, beside the results: `<results>/requests/<target>/<scenario>/`
 * holds `requests.jsonl` (one JSON line per request) and `trace.json` (a Chrome/Perfetto trace: a process per round,
 * a track per concurrency slot; bench/rounds/request-trace.ts). Both are rewritten after each steady round, so a run
 * cut short keeps the rounds it finished, and written without following a symbolic link (io/safe-fs.ts). Bounded:
 * at most MAX_REQUESTS_PER_ROUND requests of a round and MAX_FILE_BYTES per file, the rest counted as omitted;
 * an error text is redacted (core/redact.ts), then cut to MAX_ERROR_CHARS. A write that fails is logged once and
 * the cell records no files; the measurement goes on.
 */
import { join } from 'node:path'
import { errorMessage } from '../core/errors.js'
import { fnv1a } from '../core/hash.js'
import type { Logger } from '../core/log.js'
import type { RequestRecord, RoundResult } from '../core/measurements.js'
import { redactLine } from '../core/redact.js'
import type { RequestFiles } from '../core/results.js'
import {
  placeRequests,
  requestLine,
  requestSpans,
  roundMetadata,
  type TraceEvent,
} from '../bench/rounds/request-trace.js'
import { writeFileNoFollow } from '../io/safe-fs.js'

export const REQUESTS_DIR = 'requests'
export const REQUESTS_FILE = 'requests.jsonl'
export const TRACE_FILE = 'trace.json'
export const MAX_REQUESTS_PER_ROUND = 2000
export const MAX_FILE_BYTES = 8 * 1024 * 1024
export const MAX_ERROR_CHARS = 200

/** A name part kept as it is when file-safe, else made safe and told apart by a digest of the original. */
function safePart(part: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(part)) return part
  const safe = part.replace(/[^A-Za-z0-9._@-]+/g, '_').replace(/^[._]+/, '')
  return `${safe.slice(0, 80) || 'cell'}-${fnv1a(part).toString(16)}`
}

/** The cell's folder under the results folder, one level per part of its id (`requests/sim/chat@c4`). */
export function requestDir(cellId: string): string {
  return [REQUESTS_DIR, ...cellId.split('/').map(safePart)].join('/')
}

const errorText = (text: string) => redactLine(text, MAX_ERROR_CHARS)

/** Writes one cell's record as its steady rounds end (MeasureOptions.onSteadyRound). */
export class RequestRecorder {
  private readonly lines: string[] = []
  private readonly events: TraceEvent[] = []
  private bytes = { lines: 0, events: 0 }
  private origin: number | undefined
  private rounds = 0
  private measurement = 1
  private lastIndex = -1
  private written = 0
  private omitted = 0
  private failed = false

  constructor(
    private readonly resultsDir: string,
    private readonly cellId: string,
    private readonly log: Logger,
  ) {}

  /** Where the files lie and what they hold; undefined before the first round is written, or after a failed write. */
  get files(): RequestFiles | undefined {
    if (this.failed || this.rounds === 0) return undefined
    return { dir: requestDir(this.cellId), requests: this.written, ...(this.omitted && { omitted: this.omitted }) }
  }

  /** Adds a steady round and rewrites both files; never throws. */
  round(result: RoundResult, records: readonly RequestRecord[]): void {
    if (this.failed) return
    // Round indices start again with each re-measurement of the cell.
    if (result.index <= this.lastIndex) this.measurement++
    this.lastIndex = result.index
    const placed = placeRequests(records)
    if (placed.length) this.origin ??= Math.min(...placed.map((p) => p.from))
    const pid = ++this.rounds
    const label = `round ${result.index}${this.measurement > 1 ? ` (measurement ${this.measurement})` : ''}`
    const kept = this.add(placed.slice(0, MAX_REQUESTS_PER_ROUND), result.index, pid)
    this.omitted += records.length - kept.count
    this.events.push(...roundMetadata(pid, label, kept.slots))
    this.write()
  }

  /** Adds the requests that fit the files' bounds; how many did, and the slots they used. */
  private add(placed: ReturnType<typeof placeRequests>, round: number, pid: number): { count: number; slots: number } {
    const origin = this.origin ?? 0
    let count = 0
    let slots = 0
    for (const p of placed) {
      const line = requestLine(p, round, origin, errorText)
      const spans = requestSpans(p, pid, origin, errorText)
      const spanBytes = spans.reduce((n, e) => n + JSON.stringify(e).length + 1, 0)
      if (this.bytes.lines + line.length + 1 > MAX_FILE_BYTES || this.bytes.events + spanBytes > MAX_FILE_BYTES) break
      this.lines.push(line)
      this.events.push(...spans)
      this.bytes.lines += line.length + 1
      this.bytes.events += spanBytes
      slots = Math.max(slots, p.slot)
      count++
    }
    this.written += count
    return { count, slots }
  }

  private write(): void {
    const dir = join(this.resultsDir, requestDir(this.cellId))
    try {
      writeFileNoFollow(
        join(dir, REQUESTS_FILE),
        this.lines.length ? `${this.lines.join('\n')}\n` : '',
        this.resultsDir,
      )
      const trace = { traceEvents: this.events, displayTimeUnit: 'ms', otherData: { cell: this.cellId } }
      writeFileNoFollow(join(dir, TRACE_FILE), JSON.stringify(trace), this.resultsDir)
    } catch (error) {
      this.failed = true
      this.log.warn(`${this.cellId}: per-request record not written: ${errorMessage(error)}`)
    }
  }
}
