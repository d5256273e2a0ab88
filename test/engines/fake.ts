/** Runs test/helpers/fake-engine.mjs as a child process on a free loopback port. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { pickFreePort } from '../../src/server/ports.js'

export const FAKE_ENGINE = fileURLToPath(new URL('../helpers/fake-engine.mjs', import.meta.url))

export type Dialect = 'vllm' | 'sglang' | 'llamacpp' | 'openai'

/** A `launch:` command running the fake engine; `{port}` is left for the launcher. */
export function fakeLaunch(dialect: Dialect, extra = ''): string {
  return `'${process.execPath}' '${FAKE_ENGINE}' --dialect ${dialect} --port {port} ${extra}`.trim()
}

export interface FakeEngine {
  port: number
  baseUrl: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

/** Starts the fake and waits for its "ready on" line, or the line given (bounded). */
export async function runFake(dialect: Dialect, args: string[] = [], waitFor = 'ready on'): Promise<FakeEngine> {
  const port = await pickFreePort()
  const child = spawn(process.execPath, [FAKE_ENGINE, '--dialect', dialect, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  const deadline = Date.now() + 10_000
  while (!out.includes(waitFor)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop()
      throw new Error(`fake-engine (${dialect}) did not become ready: ${out}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return { port, baseUrl: `http://127.0.0.1:${port}`, child, output: () => out, stop }
}
