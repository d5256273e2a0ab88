/**
 * A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: chromium reads commands on
 * fd 3 and writes replies and events on fd 4, each a JSON message ended by a NUL byte.
 * https://chromedevtools.github.io/devtools-protocol/
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'

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

/** A tab with a page loaded from a file:// URL, and every request it made. */
export interface Page {
  /** The tab's DevTools session, for commands of its own (input events). */
  session: string
  evaluate<T>(expression: string): Promise<T>
  requests: string[]
  url: string
  resize(width: number, height?: number): Promise<void>
  /** Writes `<shots>/<prefix>-<label>.png` (the whole page, beyond the viewport) and prints its path. */
  shot(label: string): Promise<string>
}

export interface PageOptions {
  /** Where the page's file is written. */
  dir: string
  name: string
  html: string
  /** CSS pixels; the viewport is `height` (default 1000) tall. */
  width: number
  height?: number
  shots: string
  prefix: string
  /** When given, every JavaScript dialog the page opens is accepted and its message kept here. */
  dialogs?: string[]
}

/** Opens `html` from a file:// URL in a fresh tab `width` CSS pixels wide, recording every request it makes. */
export async function openPage(browser: Browser, o: PageOptions): Promise<Page> {
  const file = join(o.dir, `${o.name}.html`)
  await writeFile(file, o.html)
  const url = pathToFileURL(file).href
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' })
  const session = String((await browser.send('Target.attachToTarget', { targetId, flatten: true })).sessionId)
  const requests: string[] = []
  let loaded!: () => void
  const load = new Promise<void>((done) => (loaded = done))
  browser.on((m) => {
    if (m.sessionId !== session) return
    if (m.method === 'Network.requestWillBeSent') requests.push(String((m.params!.request as { url: string }).url))
    if (m.method === 'Page.loadEventFired') loaded()
    if (m.method === 'Page.javascriptDialogOpening' && o.dialogs) {
      o.dialogs.push(String(m.params!.message))
      void browser.send('Page.handleJavaScriptDialog', { accept: true }, session)
    }
  })
  for (const domain of ['Page.enable', 'Network.enable', 'Runtime.enable']) await browser.send(domain, {}, session)
  const resize = async (width: number, height = o.height ?? 1000) => {
    await browser.send(
      'Emulation.setDeviceMetricsOverride',
      { width, height, deviceScaleFactor: 1, mobile: false },
      session,
    )
  }
  await resize(o.width)
  await browser.send('Page.navigate', { url }, session)
  await load
  const evaluate = async <T>(expression: string): Promise<T> => {
    const reply = await browser.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      session,
    )
    if (reply.exceptionDetails) throw new Error(`page script failed: ${JSON.stringify(reply.exceptionDetails)}`)
    return (reply.result as { value: T }).value
  }
  const shot = async (label: string) => {
    const image = await browser.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, session)
    const path = join(o.shots, `${o.prefix}-${label}.png`)
    await writeFile(path, Buffer.from(String(image.data), 'base64'))
    console.log(`${o.prefix} screenshot: ${path}`)
    return path
  }
  return { session, evaluate, requests, url, resize, shot }
}
