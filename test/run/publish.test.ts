/**
 * The results directory a run leaves: a results file that would not read back is never written (and a stale one is
 * removed), while the report still is, and the step's failure names the file and the field.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { redacted } from '../../src/core/redact.js'
import { writeOutputs } from '../../src/run/publish.js'
import { readResults } from '../../src/store/index.js'
import { storedCell, storedResults } from '../helpers/builders.js'

const OUTCOME = { verdict: 'pass' as const, regressions: 0 }

describe('writeOutputs', () => {
  it('writes a results file that reads back, and the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbg-publish-'))
    const file = storedResults('a', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])])
    const written = await writeOutputs(dir, '', redacted(file), '# report\n', OUTCOME)
    expect(written.failure).toBeUndefined()
    expect(readResults(readFileSync(written.resultsFile, 'utf8'), 'r').cells.map((c) => c.id)).toEqual(['t/a'])
    expect(readFileSync(written.reportFile, 'utf8')).toBe('# report\n')
  })

  it('refuses a results file that would not read back: no file (a stale one removed), the report, a named failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbg-publish-'))
    writeFileSync(join(dir, 'results-shard-1-of-2.json'), '{"stale": true}')
    const file = storedResults('a', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])])
    file.cells[0].rounds[1].durationMs = Number.NaN
    const written = await writeOutputs(dir, '1/2', redacted(file), '# report\n', {
      ...OUTCOME,
      failure: '1 storedCell(s) regressed',
    })
    expect(existsSync(written.resultsFile)).toBe(false)
    expect(readFileSync(written.reportFile, 'utf8')).toBe('# report\n')
    expect(written.failure).toBe(
      `1 storedCell(s) regressed; ${join(dir, 'results-shard-1-of-2.json')}: not written, it would not read back: cells[0].rounds[1].durationMs: expected a number, got null`,
    )
  })
})
