/**
 * An engine's stdout+stderr on disk, bounded: the first `headBytes` (the launch, the load,
 * usually the reason it failed) are kept, then only a window of the latest output. When the
 * part after the head grows past twice the window it is rewritten as a marker plus the last
 * `tailBytes`, so a runaway engine costs at most head + 2 × tail on disk.
 */
import { closeSync, fstatSync, ftruncateSync, readFileSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { redact } from '../core/redact.js'
import { ensureDir, openNoFollow } from '../io/safe-fs.js'
import { cut, listeningPort } from './log-lines.js'

export interface BoundedLogOptions {
  headBytes?: number
  tailBytes?: number
}

export const DEFAULT_HEAD_BYTES = 1024 * 1024
export const DEFAULT_TAIL_BYTES = 256 * 1024
/** A line longer than this is written before its end arrives (engines print progress bars without newlines). */
const PARTIAL_LINE_CHARS = 64 * 1024
/** Most lines kept that say where the engine listens (log-lines.ts); later ones only repeat. */
const MAX_LISTENING_LINES = 8

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g

export class BoundedLog {
  private fd: number | undefined
  private readonly base: number
  private readonly headBytes: number
  private readonly tailBytes: number
  private head = 0
  private afterHead = 0
  private inFile = 0
  private recent: Buffer[] = []
  private recentBytes = 0
  private readonly decoder = new StringDecoder('utf8')
  private partial = ''
  private readonly heard: string[] = []

  constructor(
    readonly path: string,
    options: BoundedLogOptions = {},
  ) {
    this.headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES
    this.tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES
    ensureDir(dirname(path))
    this.fd = openNoFollow(path, 'append')
    // Appending to an earlier run's log: the bound applies to what this run adds.
    this.base = fstatSync(this.fd).size
  }

  /** Bytes written by the engine that are no longer in the file. */
  get droppedBytes(): number {
    return this.afterHead - Math.min(this.afterHead, this.inFile)
  }

  /**
   * Engine output: goes to the file and to the tail, redacted of secrets a line at a time (a partial line
   * waits for its end, up to PARTIAL_LINE_CHARS); `close` redacts the whole file once more, for secrets a
   * line break split.
   */
  write(data: Buffer | string): void {
    const text = this.partial + (typeof data === 'string' ? data : this.decoder.write(data))
    const cut = text.lastIndexOf('\n') + 1
    const ready = cut > 0 ? text.slice(0, cut) : text.length > PARTIAL_LINE_CHARS ? text : ''
    this.partial = text.slice(ready.length)
    if (ready) {
      const clean = redact(ready)
      this.listen(clean)
      this.append(Buffer.from(clean), true)
    }
  }

  /** The lines, as the log has them, in which the engine said where it listens (at most MAX_LISTENING_LINES, cut). */
  listening(): readonly string[] {
    return this.heard
  }

  private listen(text: string): void {
    if (this.heard.length >= MAX_LISTENING_LINES || !text.includes('http')) return
    for (const line of text.replace(ANSI, '').split(/\r\n|\r|\n/)) {
      if (this.heard.length < MAX_LISTENING_LINES && listeningPort(line) !== undefined)
        this.heard.push(cut(line.trim()))
    }
  }

  /** Our own lines (the command, the exit): in the file, not in the engine's tail. */
  note(text: string): void {
    this.flushPartial()
    this.append(Buffer.from(redact(text)), false)
  }

  private flushPartial(): void {
    const rest = this.partial + this.decoder.end()
    this.partial = ''
    if (rest) this.append(Buffer.from(redact(rest)), true)
  }

  private append(chunk: Buffer, remember: boolean): void {
    if (chunk.length === 0) return
    if (remember) this.remember(chunk)
    if (this.fd === undefined) return
    let rest = chunk
    if (this.head < this.headBytes) {
      const part = rest.subarray(0, this.headBytes - this.head)
      writeSync(this.fd, part)
      this.head += part.length
      rest = rest.subarray(part.length)
    }
    if (rest.length === 0) return
    writeSync(this.fd, rest)
    this.afterHead += rest.length
    this.inFile += rest.length
    if (this.inFile > 2 * this.tailBytes) this.rotate()
  }

  private remember(chunk: Buffer): void {
    this.recent.push(chunk)
    this.recentBytes += chunk.length
    while (this.recent.length > 1 && this.recentBytes - this.recent[0].length >= this.tailBytes) {
      this.recentBytes -= this.recent.shift()!.length
    }
  }

  private latest(): Buffer {
    const all = Buffer.concat(this.recent)
    return all.length > this.tailBytes ? all.subarray(all.length - this.tailBytes) : all
  }

  private rotate(): void {
    const fd = this.fd!
    // Notes written after the head are not in the ring; losing them with the rest is fine.
    const kept = this.latest()
    const dropped = this.afterHead - kept.length
    ftruncateSync(fd, this.base + this.head)
    const marker = Buffer.from(`\n[llm-bench-gate: ${dropped} bytes of engine output dropped to bound the log size]\n`)
    writeSync(fd, marker)
    writeSync(fd, kept)
    this.inFile = kept.length
  }

  /** The last `lines` lines (ANSI colours stripped, `\r` progress bars split), newest last; redacted. */
  tail(lines = 40): string {
    const text = redact((this.latest().toString('utf8') + this.partial).replace(ANSI, ''))
    const all = text.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '')
    return all.slice(-lines).join('\n')
  }

  lastLine(): string | undefined {
    return this.tail(1) || undefined
  }

  close(): void {
    if (this.fd === undefined) return
    this.flushPartial()
    const fd = this.fd
    this.fd = undefined
    try {
      this.redactWritten(fd)
    } finally {
      closeSync(fd)
    }
  }

  /** What this run wrote, redacted as a whole (the file is bounded to head + 2 × tail bytes). */
  private redactWritten(fd: number): void {
    const all = readFileSync(this.path)
    const mine = all.subarray(this.base).toString('utf8')
    const clean = redact(mine)
    if (clean === mine) return
    ftruncateSync(fd, this.base)
    writeSync(fd, Buffer.from(clean))
  }
}
