/**
 * A cell's prefix-cache reset and per-request record in the report and the results file: a reset not done is named
 * with its reason under the cell's rounds, the record's files are linked relative to the results folder (and a folder
 * that is not one the run writes gets no link), and a results file with both fields reads back unchanged.
 */
import { describe, expect, it } from 'vitest'
import { roundsSection } from '../../src/report/markdown/details.js'
import { recordLines } from '../../src/report/markdown/record-lines.js'
import { readResults } from '../../src/store/results-file.js'
import { cell, resultsFile, round } from '../helpers/builders.js'

const rounds = [round(0, false), round(1, true)]

describe('recordLines', () => {
  it('names a reset not done, and links both files of the record', () => {
    const c = cell('trt/chat@c4', rounds, {
      prefixCacheReset: { reset: false, reason: 'trtllm offers no reset' },
      requestFiles: { dir: 'requests/trt/chat@c4', requests: 16, omitted: 2 },
    })
    expect(recordLines(c)).toBe(
      [
        '- prefix cache not reset before the cold round: trtllm offers no reset',
        '- 16 requests recorded, 2 more left out: [requests.jsonl](requests/trt/chat%40c4/requests.jsonl) · [trace.json](requests/trt/chat%40c4/trace.json) (opens in ui.perfetto.dev), in the results folder',
      ].join('\n'),
    )
    expect(roundsSection([c])).toContain('prefix cache not reset before the cold round: trtllm offers no reset')
  })

  it('says nothing of a reset that was done', () => {
    const c = cell('sim/chat', rounds, { prefixCacheReset: { reset: true, via: 'POST /reset_prefix_cache' } })
    expect(recordLines(c)).toBeUndefined()
  })

  it.each(['../../etc/passwd', 'requests/../x', 'https://example.test/x', 'requests/a)b'])(
    'links no folder the run does not write: %s',
    (dir) => {
      expect(recordLines(cell('sim/chat', rounds, { requestFiles: { dir, requests: 1 } }))).toBeUndefined()
    },
  )

  it('escapes a reason the engine wrote', () => {
    const c = cell('sim/chat', rounds, {
      prefixCacheReset: { reset: false, reason: 'sglang answered 400: <b>@team</b>' },
    })
    expect(recordLines(c)).toBe(
      '- prefix cache not reset before the cold round: sglang answered 400: &lt;b&gt;@&#8203;team&lt;/b&gt;',
    )
  })
})

describe('results file', () => {
  it('reads prefixCacheReset and requestFiles back as written; a cell without them stays valid', () => {
    const withBoth = cell('sim/chat', rounds, {
      prefixCacheReset: { reset: false, reason: 'vllm offers no reset here: POST /reset_prefix_cache answered 404' },
      requestFiles: { dir: 'requests/sim/chat', requests: 8 },
    })
    const file = resultsFile([withBoth, cell('sim/other', rounds)])
    const read = readResults(JSON.stringify(file), 'results.json')
    expect(read.cells[0].prefixCacheReset).toEqual(withBoth.prefixCacheReset)
    expect(read.cells[0].requestFiles).toEqual(withBoth.requestFiles)
    expect(read.cells[1].prefixCacheReset).toBeUndefined()
    const bad = resultsFile([{ ...withBoth, prefixCacheReset: { reset: 'yes' } as never }])
    expect(() => readResults(JSON.stringify(bad), 'results.json')).toThrow(/prefixCacheReset\.reset/)
  })
})
