/**
 * What an update tells its caller about the branch besides its own key's merged files: every hardware key that
 * has a baseline, with its latest update, as a root page lists them. This update's key comes from what it
 * writes, every other key from its stored baseline.
 */
import type { Snapshot } from './commit-files.js'
import type { KeySummary } from './index.js'

const BASELINE = /^([^/]+)\/baseline\.json$/

/** `current` first, then every other key whose `<key>/baseline.json` the snapshot holds, in the tree's order. */
export async function keySummaries(snapshot: Snapshot, current: KeySummary): Promise<KeySummary[]> {
  const keys = new Map<string, KeySummary>([[current.hardware, current]])
  for (const path of await snapshot.paths()) {
    const hardware = BASELINE.exec(path)?.[1]
    if (!hardware || keys.has(hardware)) continue
    keys.set(hardware, summaryOf(hardware, await snapshot.read(path)))
  }
  return [...keys.values()]
}

/**
 * Another key's baseline, as a root page lists it. The data branch is untrusted: what another writer left
 * unreadable or of the wrong shape still gets its row, with what can be read of it, and never stops this
 * key's update.
 */
function summaryOf(hardware: string, text: string | undefined): KeySummary {
  let file: unknown
  try {
    file = JSON.parse(text ?? '')
  } catch {
    return { hardware }
  }
  const record = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {}
  const string = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const run = record(record(file).run)
  const cells = record(file).cells
  return {
    hardware,
    updated: string(run.finishedAt) ?? string(run.startedAt),
    sha: string(run.sha),
    cells: Array.isArray(cells) ? cells.length : undefined,
  }
}
