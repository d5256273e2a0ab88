import { describe, expect, it } from 'vitest'
import { cellBaseline, findRenames, sameWorkload, type CellIdentity, type RunCells } from '../../src/compare/index.js'
import type { CellResult } from '../../src/core/results.js'
import { workloadChanges, workloadDigest, workloadFingerprint, type CellWorkload } from '../../src/core/workload.js'
import { flatCell, historyEntry, resultsFile } from '../helpers/builders.js'

const W: CellWorkload = {
  inputTokens: 1024,
  outputTokens: 128,
  concurrency: 8,
  requests: 8,
  rate: null,
  api: 'completions',
}
const based = (id: string, extra: Partial<CellResult> = {}) =>
  flatCell(id, { decode: 50 }, 3, 1, { workload: W, ...extra })
const identity = (c: CellResult): CellIdentity => ({
  id: c.id,
  target: c.target,
  scenario: c.scenario,
  engine: c.engine,
  quant: c.quant,
  workload: c.workload,
})
const runOf = (...cells: CellResult[]): RunCells => ({ cells: cells.map(identity), selected: () => true })

describe('workloads', () => {
  it('a fingerprint names every part; the digest is equal exactly when the fingerprint is', () => {
    expect(workloadFingerprint(W)).toBe('in1024 out128 c8 n8 closed completions')
    expect(workloadFingerprint({ ...W, rate: 2, requestBody: 'abc' })).toBe(
      'in1024 out128 c8 n8 rate2 completions +body:abc',
    )
    expect(workloadDigest({ ...W })).toBe(workloadDigest(W))
    for (const other of [{ concurrency: 16 }, { api: 'chat' as const }, { requestBody: 'x' }, { rate: 1 }])
      expect(workloadDigest({ ...W, ...other })).not.toBe(workloadDigest(W))
  })

  it('changes in words; a workload written before the API was recorded is compared on what it has', () => {
    expect(workloadChanges(W, { ...W, concurrency: 16, requests: 16 })).toEqual([
      'concurrency 8 → 16',
      'requests 8 → 16',
    ])
    expect(workloadChanges(W, { ...W, api: 'chat', requestBody: 'd' })).toEqual([
      'api completions → chat',
      'request-body changed',
    ])
    const { api: _, ...old } = W
    expect(workloadChanges(old, { ...W, api: 'chat' })).toEqual([])
    expect(workloadChanges(W, { ...W, rate: 4 })).toEqual(['rate closed-loop → 4'])
    // A length nobody requested (an ingested dataset run) is the achieved mean: not a change.
    const achieved = { ...W, outputTokens: 127, unrequested: ['outputTokens' as const] }
    expect(workloadChanges(W, achieved)).toEqual([])
    expect(workloadDigest(achieved)).toBe(workloadDigest({ ...achieved, outputTokens: 131 }))
  })

  it('latency targets are part of the workload; a cell without them keeps the digest it always had', () => {
    const slo = { ...W, slo: { ttftMs: 2000, tpotMs: 80 } }
    expect(workloadFingerprint(slo)).toBe('in1024 out128 c8 n8 closed completions slo:ttft≤2000ms tpot≤80ms')
    expect(workloadDigest({ ...W, slo: undefined })).toBe(workloadDigest(W))
    expect(workloadDigest(slo)).not.toBe(workloadDigest(W))
    expect(workloadDigest({ ...W, slo: { ttftMs: 2000, tpotMs: 81 } })).not.toBe(workloadDigest(slo))
    expect(workloadChanges(W, slo)).toEqual(['slo none → ttft≤2000ms tpot≤80ms'])
    expect(workloadChanges(slo, { ...W, slo: { tpotMs: 50 } })).toEqual(['slo ttft≤2000ms tpot≤80ms → tpot≤50ms'])
    expect(workloadChanges(slo, { ...slo })).toEqual([])
  })
})

describe('sameWorkload', () => {
  it('leaves out the file cell and the history runs of another workload, and says what changed', () => {
    const view = { results: resultsFile([based('t/s')]), history: [] }
    const same = sameWorkload(view, 't/s', W)
    expect(same.view).toBe(view)
    const other = sameWorkload(view, 't/s', { ...W, outputTokens: 256 })
    expect(other.changes).toEqual(['output tokens 128 → 256'])
    expect(other.view.results?.cells).toEqual([])
  })

  it('history entries keep a digest per cell; entries without one count as the file cell’s workload', () => {
    const cell = based('t/s')
    const heavy = { ...W, concurrency: 16, requests: 16 }
    const old = historyEntry([cell], ['decode_tps.mean'], 'a'.repeat(40))
    const before = {
      ...historyEntry([cell], ['decode_tps.mean'], 'b'.repeat(40)),
      workloads: { 't/s': workloadDigest(W) },
    }
    const after = {
      ...historyEntry([cell], ['decode_tps.mean'], 'c'.repeat(40)),
      workloads: { 't/s': workloadDigest(heavy) },
    }
    // Main moved to concurrency 16 in its newest run; the file (newest run) has that workload.
    const view = { results: resultsFile([{ ...cell, workload: heavy }]), history: [old, before, after] }
    const kept = (w: CellWorkload) =>
      sameWorkload(view, 't/s', w)
        .view.history.filter((e) => e.cells['t/s'])
        .map((e) => e.sha[0])
    expect(kept(heavy)).toEqual(['a', 'c'])
    expect(kept(W)).toEqual(['b'])
  })
})

describe('renames', () => {
  it('pairs a renamed target (same scenario, engine, quant and workload) one to one', () => {
    const view = { results: resultsFile([based('old/s'), based('keep/s')]), history: [] }
    const renamed = based('new/s')
    const r = findRenames(view, runOf(renamed, based('keep/s')))
    expect([...r.aliases]).toEqual([['new/s', 'old/s']])
    expect(r.unpaired).toEqual([])
  })

  it('pairs a renamed scenario of the same target', () => {
    const view = { results: resultsFile([based('t/old')]), history: [] }
    expect([...findRenames(view, runOf(based('t/new'))).aliases]).toEqual([['t/new', 't/old']])
  })

  it('pairs nothing when the pairing is ambiguous or something else changed; those stay unpaired', () => {
    const view = { results: resultsFile([based('a/s'), based('b/s')]), history: [] }
    // Two unmeasured candidates for one new cell.
    expect(findRenames(view, runOf(based('c/s'))).aliases.size).toBe(0)
    // Two new cells for one candidate.
    const one = { results: resultsFile([based('a/s')]), history: [] }
    expect(findRenames(one, runOf(based('b/s'), based('c/s'))).aliases.size).toBe(0)
    // Another engine, quant or workload, or neither id part shared.
    for (const c of [
      based('b/s', { engine: 'vllm' }),
      based('b/s', { quant: 'nvfp4' }),
      based('b/s', { workload: { ...W, concurrency: 4 } }),
      based('b/x'),
    ]) {
      const r = findRenames(one, runOf(c))
      expect(r.aliases.size, c.id).toBe(0)
      expect(r.unpaired).toEqual(['a/s'])
    }
  })

  it('a cell outside the run’s selection is not unmeasured', () => {
    const view = { results: resultsFile([based('a/s')]), history: [] }
    const r = findRenames(view, { ...runOf(based('b/x')), selected: (id) => id.startsWith('b/') })
    expect(r.unpaired).toEqual([])
  })
})

describe('cellBaseline', () => {
  const renamesNone = { aliases: new Map<string, string>(), unpaired: [] }

  it('a new cell in a run that left baseline cells unmeasured is inconclusive, naming them', () => {
    const view = { results: resultsFile([based('a/s')]), history: [] }
    const got = cellBaseline(view, based('b/x'), runOf(based('b/x')), { aliases: new Map(), unpaired: ['a/s'] })
    expect(got.verdict?.status).toBe('inconclusive')
    expect(got.verdict?.note).toContain("new cell, while the baseline's a/s was not measured (renamed?)")
  })

  it('a renamed cell is judged on the old cell’s baseline under its own id', () => {
    const view = { results: resultsFile([based('a/s')]), history: [] }
    const got = cellBaseline(view, based('b/s'), runOf(based('b/s')), {
      aliases: new Map([['b/s', 'a/s']]),
      unpaired: [],
    })
    expect(got.verdict).toBeUndefined()
    expect(got.comparedWith).toBe('a/s')
    expect(got.view.results?.cells.map((c) => c.id)).toEqual(['b/s'])
  })

  it('a first run on a hardware key the store does not hold while it holds others is inconclusive', () => {
    const view = { history: [] }
    const run = { ...runOf(based('a/s')), hardware: { key: 'box-b', others: ['box-a'] } }
    const got = cellBaseline(view, based('a/s'), run, renamesNone)
    expect(got.verdict?.note).toContain('no baseline under hardware key box-b, while the store holds box-a')
    // The store's first key ever: a first run passes as new.
    const first = cellBaseline(view, based('a/s'), { ...run, hardware: { key: 'box-b', others: [] } }, renamesNone)
    expect(first.verdict).toBeUndefined()
  })
})
