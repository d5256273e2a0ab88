/**
 * A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: chromium reads commands on
 * fd 3 and writes replies and events on fd 4, each a JSON message ended by a NUL byte.
 * https://chromedevtools.github.io/devtools-protocol/
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'

interface Message {
  id?: number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { message: string }
  sessionId?: string
}

export interface Browser {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>
  on(listener: (message: Message) => void): void
  close(): Promise<void>
}

export async function launchBrowser(path: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'lbg-chromium-'))
  const args = [
    '--headless',
    '--remote-debugging-pipe',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    `--user-data-dir=${profile}`,
    'about:blank',
  ]
  const child: ChildProcess = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] })
  const input = child.stdio[3] as Writable
  const output = child.stdio[4] as Readable
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>()
  const listeners: Array<(m: Message) => void> = []
  let buffer = Buffer.alloc(0)
  output.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    for (let end = buffer.indexOf(0); end >= 0; end = buffer.indexOf(0)) {
      const message = JSON.parse(buffer.subarray(0, end).toString('utf8')) as Message
      buffer = buffer.subarray(end + 1)
      const waiter = message.id === undefined ? undefined : pending.get(message.id)
      if (waiter) {
        pending.delete(message.id!)
        if (message.error) waiter.reject(new Error(`${message.error.message}`))
        else waiter.resolve(message.result ?? {})
      } else for (const l of listeners) l(message)
    }
  })
  const exited = new Promise<void>((done) => child.on('exit', () => done()))
  void exited.then(() => {
    for (const w of pending.values()) w.reject(new Error(`chromium exited: ${stderr.slice(-2000)}`))
  })
  let nextId = 1
  return {
    send(method, params = {}, sessionId) {
      const id = nextId++
      const promise = new Promise<Record<string, unknown>>((resolve, reject) => pending.set(id, { resolve, reject }))
      input.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0')
      return promise
    },
    on: (listener) => void listeners.push(listener),
    async close() {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
      // Chromium's helper processes can still be writing the profile for a moment after the browser exits
      // (seen: ENOTEMPTY on its Default/ folder): rm retries those.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    },
  }
}
