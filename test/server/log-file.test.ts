import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { secrets } from '../../src/core/redact.js'
import { BoundedLog } from '../../src/server/log-file.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bounded-log-'))
  dirs.push(dir)
  return join(dir, 'logs', 'engine.log')
}

describe('BoundedLog', () => {
  it('keeps everything while under the head size', () => {
    const path = tempPath()
    const log = new BoundedLog(path, { headBytes: 1000, tailBytes: 200 })
    log.note('$ cmd\n')
    log.write('line 1\nline 2\n')
    log.close()
    expect(readFileSync(path, 'utf8')).toBe('$ cmd\nline 1\nline 2\n')
    expect(log.tail()).toBe('line 1\nline 2')
  })

  it('a runaway engine keeps the file within head + 2 × tail + marker, with the start and the latest output', () => {
    const path = tempPath()
    const head = 1000
    const tail = 500
    const log = new BoundedLog(path, { headBytes: head, tailBytes: tail })
    const total = 200_000
    let written = 0
    for (let i = 0; written < total; i++) {
      const line = `line ${String(i).padStart(6, '0')}\n`
      log.write(line)
      written += line.length
      if (i % 50 === 0) expect(statSync(path).size).toBeLessThanOrEqual(head + 2 * tail + 100)
    }
    log.write('the very last line\n')
    log.close()
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith('line 000000\nline 000001\n')).toBe(true)
    expect(text).toMatch(/\[llm-bench-gate: \d+ bytes of engine output dropped to bound the log size\]/)
    expect(text.endsWith('the very last line\n')).toBe(true)
    expect(log.droppedBytes).toBeGreaterThan(total - head - 2 * tail)
    expect(log.tail(2)).toMatch(/^line \d{6}\nthe very last line$/)
  })

  it('appends to an existing file and bounds only what it adds', () => {
    const path = tempPath()
    new BoundedLog(path).close()
    writeFileSync(path, 'x'.repeat(5000))
    const log = new BoundedLog(path, { headBytes: 100, tailBytes: 100 })
    for (let i = 0; i < 100; i++) log.write('y'.repeat(50) + '\n')
    log.close()
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith('x'.repeat(5000) + 'y')).toBe(true)
    expect(text.length).toBeLessThanOrEqual(5000 + 100 + 200 + 100)
  })

  it('tail strips ANSI colours and splits carriage-return progress bars; notes stay out of it', () => {
    const log = new BoundedLog(tempPath())
    log.write('\x1b[32mINFO\x1b[0m loading\nshards  10%\rshards  50%\rshards 100%\n\n')
    log.note('[llm-bench-gate] launch process exited (code 1)\n')
    log.close()
    expect(log.tail(3)).toBe('shards  10%\nshards  50%\nshards 100%')
    expect(log.tail()).toBe('INFO loading\nshards  10%\nshards  50%\nshards 100%')
    expect(log.lastLine()).toBe('shards 100%')
  })
})

describe('BoundedLog redaction', () => {
  it('keeps registered secrets and token shapes out of the file and the tail, even split across writes and lines', () => {
    const secret = 'Zq8nW2pLx7Rt4Vb9-engine'
    secrets.add(secret)
    const shaped = `hf_${'a'.repeat(34)}`
    const path = join(mkdtempSync(join(tmpdir(), 'log-redact-')), 'engine.log')
    const log = new BoundedLog(path)
    log.note(`$ serve --token ${secret}\n`)
    log.write(`env: HF_TOKEN=${shaped.slice(0, 10)}`)
    log.write(`${shaped.slice(10)}\nkey ${secret.slice(0, 5)}`)
    log.write(Buffer.from(`${secret.slice(5, 12)}\n${secret.slice(12)} done\n`))
    const tail = log.tail()
    log.close()
    const file = readFileSync(path, 'utf8')
    for (const text of [file, tail]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(shaped)
      expect(text).not.toContain(secret.slice(12))
    }
    expect(file).toContain('env: HF_TOKEN=***')
    expect(file).toContain('$ serve --token ***')
  })
})
