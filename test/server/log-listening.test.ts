/**
 * The bounded log remembers the lines in which the engine said where it listens, however far they scroll out of the
 * tail: whole lines only, colours stripped, at most eight, each cut.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BoundedLog } from '../../src/server/log-file.js'
import { QUOTE_CHARS } from '../../src/server/log-lines.js'

const dir = mkdtempSync(join(tmpdir(), 'log-listening-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const log = () => new BoundedLog(join(dir, `engine-${++n}.log`), { headBytes: 1000, tailBytes: 200 })

describe('BoundedLog.listening', () => {
  it('keeps the line past the tail, joined across writes, without colours', () => {
    const l = log()
    l.write('INFO:     Uvicorn running on \x1b[1mhttp://0.0.0.0:8')
    l.write('000\x1b[0m (Press CTRL+C to quit)\n')
    for (let i = 0; i < 100; i++) l.write(`INFO: route ${i}\n`)
    l.close()
    expect(l.tail()).not.toContain('Uvicorn')
    expect(l.listening()).toEqual(['INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)'])
  })

  it('keeps at most eight, each cut', () => {
    const l = log()
    const long = `listening on http://127.0.0.1:8080 ${'x'.repeat(1000)}`
    for (let i = 0; i < 20; i++) l.write(`${long}\n`)
    l.close()
    expect(l.listening()).toHaveLength(8)
    expect(l.listening()[0]).toHaveLength(QUOTE_CHARS + 1)
  })
})
