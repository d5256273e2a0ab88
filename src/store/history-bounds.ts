/**
 * How `history.json` stays small: at most HISTORY_ENTRIES runs and HISTORY_BYTES bytes (oldest runs go
 * first), values kept to six significant digits, and one run per line rather than pretty-printed, so a
 * hundred runs of fifty cells stay well under GitHub's 100 MB file limit and its 1 MB contents-API limit
 * is only passed by very large matrices (the store reads those through the blob API).
 */
import type { HistoryEntry, HistoryFile, MetricSamples } from '../core/results.js'

export const HISTORY_ENTRIES = 100
export const HISTORY_BYTES = 2 * 1024 * 1024

const compact = (v: number): number => (Number.isFinite(v) ? Number(v.toPrecision(6)) : v)

function compactEntry(entry: HistoryEntry): HistoryEntry {
  const cells: HistoryEntry['cells'] = {}
  for (const [id, metrics] of Object.entries(entry.cells)) {
    const out: Record<string, MetricSamples> = {}
    for (const [key, s] of Object.entries(metrics))
      out[key] = { steady: compact(s.steady), rounds: s.rounds.map(compact) }
    cells[id] = out
  }
  return { ...entry, cells }
}

/** The file's text: the header on one line, then one line per run. */
export function serializeHistory(file: HistoryFile): string {
  const head = JSON.stringify({ schema: file.schema, hardware: file.hardware })
  const lines = file.entries.map((e) => JSON.stringify(compactEntry(e)))
  return `${head.slice(0, -1)},"entries":[${lines.length ? `\n${lines.join(',\n')}\n` : ''}]}\n`
}

/** Drops the oldest runs until the file fits `maxBytes`; the newest run always stays. */
export function boundedHistory(file: HistoryFile, maxBytes = HISTORY_BYTES): { file: HistoryFile; text: string } {
  let entries = file.entries
  for (;;) {
    const bounded = { ...file, entries }
    const text = serializeHistory(bounded)
    if (entries.length <= 1 || Buffer.byteLength(text) <= maxBytes) return { file: bounded, text }
    // Estimate how many to drop from the average line, then check again.
    const over = Buffer.byteLength(text) - maxBytes
    const perEntry = Buffer.byteLength(text) / entries.length
    entries = entries.slice(Math.min(entries.length - 1, Math.max(1, Math.ceil(over / perEntry))))
  }
}
