/**
 * A conversation's turns and the template's thinking switch are part of a cell's workload: a `turns: 4` cell is
 * never compared with a baseline of another turn count, turn length or thinking, while workloads without them keep
 * the fingerprint and digest they had; a results file keeps them and the rounds' per-turn figures, and an older
 * file without them still reads.
 */
import { describe, expect, it } from 'vitest'
import { sameWorkload } from '../../src/compare/index.js'
import type { ScenarioPlan, TargetSettings } from '../../src/core/plan.js'
import { workloadChanges, workloadDigest, workloadFingerprint, type CellWorkload } from '../../src/core/workload.js'
import { readResults } from '../../src/store/index.js'
import { workloadOf } from '../../src/target-run/cell-result.js'
import { flatCell, historyEntry, resultsFile } from '../helpers/builders.js'

const W: CellWorkload = { inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8, rate: null, api: 'chat' }
const CONV: CellWorkload = { ...W, turns: 4, turnTokens: 256 }
const settings = { api: 'chat', requestBody: {} } as Pick<TargetSettings, 'api' | 'requestBody'>
const scenario: ScenarioPlan = { id: 's', inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8 }

describe('turns and thinking in the workload', () => {
  it('a cell records them from its scenario, and nothing without them', () => {
    expect(workloadOf(scenario, settings)).toEqual(W)
    expect(workloadOf({ ...scenario, turns: 4, turnTokens: 256, thinking: false }, settings)).toEqual({
      ...CONV,
      thinking: false,
    })
  })

  it('fingerprints without them are what they were; with them they differ', () => {
    expect(workloadFingerprint(W)).toBe('in1024 out128 c8 n8 closed chat')
    expect(workloadDigest(W)).toBe('da3957ab')
    expect(workloadFingerprint(CONV)).toBe('in1024 out128 c8 n8 closed chat turns4x256')
    expect(workloadFingerprint({ ...CONV, thinking: true })).toBe(
      'in1024 out128 c8 n8 closed chat turns4x256 thinking:on',
    )
  })

  it('changes name the turns, the turn length and thinking', () => {
    expect(workloadChanges(CONV, { ...CONV, turns: 6 })).toEqual(['turns 4 → 6'])
    expect(workloadChanges(W, CONV)).toEqual(['turns 1 → 4', 'turn tokens 0 → 256'])
    expect(workloadChanges(CONV, { ...CONV, turnTokens: 512 })).toEqual(['turn tokens 256 → 512'])
    expect(workloadChanges(W, { ...W, thinking: false })).toEqual(['thinking unset → off'])
    expect(workloadChanges({ ...W, thinking: true }, { ...W, thinking: false })).toEqual(['thinking on → off'])
    expect(workloadChanges(CONV, { ...CONV })).toEqual([])
  })

  it('a baseline of another turn count, in the file or in the history, is left out', () => {
    const cell = flatCell('t/s', { ttft: 100 }, 3, 1, { workload: CONV })
    const entry = {
      ...historyEntry([cell], ['ttft_ms.mean'], 'a'.repeat(40)),
      workloads: { 't/s': workloadDigest(CONV) },
    }
    const view = { results: resultsFile([cell]), history: [entry] }
    const six = sameWorkload(view, 't/s', { ...CONV, turns: 6 })
    expect(six.changes).toEqual(['turns 4 → 6'])
    expect(six.view.results?.cells).toEqual([])
    expect(six.view.history[0].cells['t/s']).toBeUndefined()
    expect(sameWorkload(view, 't/s', CONV).view).toBe(view)
  })

  it('a results file keeps them and the per-turn figures; one without them still reads', () => {
    const cell = flatCell('t/s', { ttft: 100 }, 3, 1, { workload: { ...CONV, thinking: false } })
    const turns = [
      { turn: 1, ok: 8, ttft_ms: 300, prompt_tokens: 1024 },
      { turn: 2, ok: 8, ttft_ms: 60, prompt_tokens: 1420, added_tokens: 396 },
    ]
    cell.rounds[1] = { ...cell.rounds[1], turns }
    cell.rounds[1].metrics.ttft_per_1k_added = 151.5
    const read = readResults(JSON.stringify(resultsFile([cell])), 'results.json').cells[0]
    expect(read.workload).toMatchObject({ turns: 4, turnTokens: 256, thinking: false })
    expect(read.rounds[1].turns).toEqual(turns)
    expect(read.rounds[1].metrics.ttft_per_1k_added).toBe(151.5)
    const bad = JSON.parse(JSON.stringify(resultsFile([cell]))) as { cells: { workload: Record<string, unknown> }[] }
    bad.cells[0].workload.thinking = 'off'
    expect(() => readResults(JSON.stringify(bad), 'results.json')).toThrow(/thinking/)
    const old = flatCell('t/s', { ttft: 100 }, 3, 1, { workload: W })
    expect(readResults(JSON.stringify(resultsFile([old])), 'results.json').cells[0].workload).toEqual(W)
  })
})
