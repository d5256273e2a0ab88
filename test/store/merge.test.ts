import { describe, expect, it } from 'vitest'
import type { GateConfig } from '../../src/core/plan.js'
import { historyEntry, mergeHistory, mergeResults, storableCells } from '../../src/store/merge.js'
import { HISTORY_SCHEMA, type HistoryEntry } from '../../src/core/results.js'
import { storedCell, storedResults } from '../helpers/builders.js'

const fast = { decode: 50, ttft: 300 }
const slow = { decode: 40, ttft: 400 }

describe('mergeResults', () => {
  const older = storedResults('aaa', '2025-01-01T00:00:00Z', [
    storedCell('t/shared', [slow]),
    storedCell('t/old-only', [slow]),
  ])
  const newer = storedResults('bbb', '2025-01-02T00:00:00Z', [
    storedCell('t/shared', [fast]),
    storedCell('t/new-only', [fast]),
  ])

  it.each([
    ['incoming newer', older, newer],
    ['incoming older', newer, older],
  ])('%s: the newer run wins shared cells and every other cell is kept', (_, stored, incoming) => {
    const merged = mergeResults(stored, incoming)
    expect(merged.run.sha).toBe('bbb')
    expect(merged.cells.map((c) => c.id).sort()).toEqual(['t/new-only', 't/old-only', 't/shared'])
    expect(merged.cells.find((c) => c.id === 't/shared')!.metrics!.decode_tps.mean).toBe(50)
  })

  it('returns the incoming file when nothing is stored, and keeps its summary when no cell was added', () => {
    const withSummary = { ...newer, summary: { verdict: 'pass' as const, regressions: 0, counts: { pass: 2 } } }
    expect(mergeResults(undefined, withSummary)).toBe(withSummary)
    expect(
      mergeResults(storedResults('zzz', '2024-12-01T00:00:00Z', [storedCell('t/shared', [slow])]), withSummary).summary,
    ).toEqual(withSummary.summary)
    expect(mergeResults(older, withSummary).summary).toBeUndefined()
  })
})

describe('storableCells', () => {
  const ab = { base: 'a'.repeat(40), launches: 2, baseMs: 9000, prMs: 6000 }
  const run = storedResults('abc', '2025-01-03T00:00:00Z', [
    storedCell('t/tested', [fast], { ab: { status: 'ran', ...ab, stored: { status: 'regression', metrics: {} } } }),
    storedCell('t/not-run', [fast], { ab: { status: 'not-run', reason: 'ab-budget spent' } }),
    storedCell('t/plain', [fast]),
    storedCell('t/broken', [fast], { status: 'error', error: 'boom', metrics: null }),
    storedCell('t/skipped', [fast], { verdict: { status: 'missing', metrics: {} } }),
  ])

  it('keeps measured cells without their A/B record: a base arm measured another commit', () => {
    const before = structuredClone(run)
    const kept = storableCells(run)
    expect(kept.map((c) => c.id)).toEqual(['t/tested', 't/not-run', 't/plain'])
    expect(kept.map((c) => 'ab' in c)).toEqual([false, false, false])
    // Everything else of the cell is stored as it was, and the run's own cells keep their record.
    const { ab: _ab, ...tested } = before.cells[0]
    expect(kept[0]).toEqual(tested)
    expect(run).toEqual(before)
  })
})

describe('historyEntry', () => {
  const run = storedResults('abc', '2025-01-03T00:00:00Z', [
    storedCell('gated/s', [fast, slow]),
    storedCell('plain/s', [fast]),
    storedCell('broken/s', [fast], { status: 'error', error: 'boom', metrics: null }),
    storedCell('skipped/s', [fast], { verdict: { status: 'missing', metrics: {} } }),
  ])
  const gates: Record<string, GateConfig> = {
    gated: {
      decode: { maxRegression: 0.05, stat: 'p90' },
      'output-throughput': { maxRegression: 0.05, stat: 'mean' },
      ttft: { maxRegression: 0.1, stat: 'mean' },
    },
  }

  it('keeps the gated metric keys of the target, plus decode and TTFT means, with steady rounds only', () => {
    const entry = historyEntry(run, gates)
    expect(entry).toMatchObject({ sha: 'abc', date: '2025-01-03T00:00:00Z', runUrl: 'https://example.test/runs/abc' })
    expect(Object.keys(entry.cells).sort()).toEqual(['gated/s', 'plain/s'])
    expect(Object.keys(entry.cells['gated/s']).sort()).toEqual([
      'decode_tps.mean',
      'decode_tps.p90',
      'output_tps',
      'ttft_ms.mean',
    ])
    expect(entry.cells['gated/s']['decode_tps.mean']).toEqual({ steady: 45, rounds: [50, 40] })
    expect(entry.cells['gated/s']['decode_tps.p90']).toEqual({ steady: 47, rounds: [52, 42] })
    expect(entry.cells['gated/s']['output_tps']).toEqual({ steady: 315, rounds: [350, 280] })
    expect(entry.cells['gated/s']['ttft_ms.mean']).toEqual({ steady: 350, rounds: [300, 400] })
    expect(entry.cells['plain/s']).toEqual({
      'decode_tps.mean': { steady: 50, rounds: [50] },
      'ttft_ms.mean': { steady: 300, rounds: [300] },
    })
  })

  it('keeps a launched cell’s startup_s whatever the gate says, with no rounds; a cell without it has none', () => {
    const launched = storedResults('def', '2025-01-04T00:00:00Z', [
      storedCell('gated/s', [fast], { startup_s: 41.2 }),
      storedCell('plain/s', [fast]),
    ])
    const entry = historyEntry(launched, gates)
    expect(entry.cells['gated/s'].startup_s).toEqual({ steady: 41.2, rounds: [] })
    expect(entry.cells['plain/s']).not.toHaveProperty('startup_s')
  })

  it('keeps energy per token and the spec-decode factors where measured, whatever the gate says', () => {
    const drafted = storedCell('gated/s', [fast, fast])
    for (const block of [drafted.metrics!, ...drafted.rounds.map((r) => r.metrics)])
      Object.assign(block, { energy_j_per_token: 0.41, accept_length: 2.65, step_ms: 148 })
    const entry = historyEntry(
      storedResults('def', '2025-01-04T00:00:00Z', [drafted, storedCell('plain/s', [fast])]),
      gates,
    )
    expect(entry.cells['gated/s']).toMatchObject({
      energy_j_per_token: { steady: 0.41 },
      accept_length: { steady: 2.65 },
      step_ms: { steady: 148 },
    })
    expect(entry.cells['gated/s'].accept_length.rounds.length).toBeGreaterThan(0)
    expect(Object.keys(entry.cells['plain/s'])).not.toContain('accept_length')
  })

  it('keeps every metric key when no gates are given', () => {
    const keys = Object.keys(historyEntry(run).cells['plain/s'])
    // 5 distribution metrics × 4 stats + output_tps + failed_share
    expect(keys).toHaveLength(22)
    expect(keys).toContain('e2e_ms.p99')
    expect(keys).toContain('output_tps')
  })
})

describe('mergeHistory', () => {
  const entry = (
    sha: string,
    day: number,
    cells: HistoryEntry['cells'] = { 't/s': { 'decode_tps.mean': { steady: day, rounds: [day] } } },
  ): HistoryEntry => ({
    sha,
    date: `2025-01-${String(day).padStart(2, '0')}T00:00:00Z`,
    runUrl: `u${sha}`,
    cells,
  })

  it('appends newest last and keeps only the last `limit` entries', () => {
    let file = mergeHistory(undefined, entry('s1', 1), 'cpu', 3)
    for (let day = 2; day <= 5; day++) file = mergeHistory(file, entry(`s${day}`, day), 'cpu', 3)
    expect(file.schema).toBe(HISTORY_SCHEMA)
    expect(file.hardware).toBe('cpu')
    expect(file.entries.map((e) => e.sha)).toEqual(['s3', 's4', 's5'])
  })

  it('replaces the entry of a re-run sha in place, merging its cells', () => {
    const first = mergeHistory(
      mergeHistory(undefined, entry('s1', 1, { 'a/x': { 'decode_tps.mean': { steady: 1, rounds: [1] } } }), 'cpu', 5),
      entry('s2', 2),
      'cpu',
      5,
    )
    const rerun = entry('s1', 9, {
      'a/x': { 'decode_tps.mean': { steady: 7, rounds: [7] } },
      'b/y': { 'decode_tps.mean': { steady: 8, rounds: [8] } },
    })
    const again = mergeHistory(first, rerun, 'cpu', 5)
    expect(again.entries.map((e) => e.sha)).toEqual(['s1', 's2'])
    expect(again.entries[0].cells['a/x']['decode_tps.mean'].steady).toBe(7)
    expect(Object.keys(again.entries[0].cells).sort()).toEqual(['a/x', 'b/y'])
    expect(mergeHistory(again, rerun, 'cpu', 5)).toEqual(again)
  })

  it('inserts an older run before newer entries a concurrent writer stored first', () => {
    const file = mergeHistory(mergeHistory(undefined, entry('s1', 1), 'cpu', 5), entry('s3', 3), 'cpu', 5)
    expect(mergeHistory(file, entry('s2', 2), 'cpu', 5).entries.map((e) => e.sha)).toEqual(['s1', 's2', 's3'])
  })
})
