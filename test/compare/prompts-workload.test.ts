/**
 * A cell's prompts are part of its workload: a text-prompt cell is never compared with a word-list baseline (nor
 * the other way), while word-list workloads keep the fingerprint and digest they had before prompts were recorded.
 */
import { describe, expect, it } from 'vitest'
import { sameWorkload } from '../../src/compare/index.js'
import type { ScenarioPlan, TargetSettings } from '../../src/core/plan.js'
import { workloadChanges, workloadDigest, workloadFingerprint, type CellWorkload } from '../../src/core/workload.js'
import { readResults } from '../../src/store/index.js'
import { workloadOf } from '../../src/target-run/cell-result.js'
import { flatCell, historyEntry, resultsFile } from '../helpers/builders.js'

const W: CellWorkload = { inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8, rate: null, api: 'chat' }
const TEXT: CellWorkload = { ...W, prompts: 'text' }
const settings = { api: 'chat', requestBody: {} } as Pick<TargetSettings, 'api' | 'requestBody'>
const scenario: ScenarioPlan = { id: 's', inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8 }

describe('prompts in the workload', () => {
  it('a cell records text prompts and nothing for the word list', () => {
    expect(workloadOf(scenario, settings)).toEqual(W)
    expect(workloadOf({ ...scenario, prompts: 'text' }, settings)).toEqual(TEXT)
  })

  it('a word-list fingerprint and digest are what they were; text ones differ', () => {
    expect(workloadFingerprint(W)).toBe('in1024 out128 c8 n8 closed chat')
    // The digest history entries written before prompts were recorded hold for this workload.
    expect(workloadDigest(W)).toBe('da3957ab')
    expect(workloadDigest({ ...W, prompts: 'synthetic' })).toBe(workloadDigest(W))
    expect(workloadFingerprint(TEXT)).toBe('in1024 out128 c8 n8 closed chat +prompts:text')
    expect(workloadDigest(TEXT)).not.toBe(workloadDigest(W))
  })

  it('changes name the prompts, whichever way they changed', () => {
    expect(workloadChanges(W, TEXT)).toEqual(['prompts synthetic → text'])
    expect(workloadChanges(TEXT, W)).toEqual(['prompts text → synthetic'])
    expect(workloadChanges(TEXT, { ...TEXT })).toEqual([])
    // A file written before prompts were recorded measured the word list.
    const { api: _, ...old } = W
    expect(workloadChanges(old, TEXT)).toEqual(['prompts synthetic → text'])
  })

  it('a word-list baseline, in the file or in the history, is left out for a text cell', () => {
    const cell = flatCell('t/s', { decode: 50 }, 3, 1, { workload: W })
    const entry = {
      ...historyEntry([cell], ['decode_tps.mean'], 'a'.repeat(40)),
      workloads: { 't/s': workloadDigest(W) },
    }
    const view = { results: resultsFile([cell]), history: [entry] }
    const text = sameWorkload(view, 't/s', TEXT)
    expect(text.changes).toEqual(['prompts synthetic → text'])
    expect(text.view.results?.cells).toEqual([])
    expect(text.view.history[0].cells['t/s']).toBeUndefined()
    expect(sameWorkload(view, 't/s', W).view).toBe(view)
  })

  it('a results file keeps it, and refuses a kind it does not know', () => {
    const file = resultsFile([flatCell('t/s', { decode: 50 }, 3, 1, { workload: TEXT })])
    expect(readResults(JSON.stringify(file), 'results.json').cells[0].workload.prompts).toBe('text')
    const bad = JSON.parse(JSON.stringify(file)) as { cells: { workload: Record<string, unknown> }[] }
    bad.cells[0].workload.prompts = 'prose'
    expect(() => readResults(JSON.stringify(bad), 'results.json')).toThrow(/prompts/)
  })
})
