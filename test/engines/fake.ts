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

/**
 * A matrix file of one target that ignores SIGTERM (llama-server does while a stream is in flight), for the
 * tests that cancel a run: 300 tokens at 10 ms, so each request streams for about 3 s and a signal lands
 * mid-stream.
 */
export function stubbornMatrix(): string {
  const launch = fakeLaunch('llamacpp', '--ignore-sigterm --ttft-ms 5 --itl-ms 10')
  return [
    'version: 1',
    'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: false }',
    'scenarios:',
    '  long: { input-tokens: 16, output-tokens: 300, concurrency: 2, requests: 4 }',
    'targets:',
    `  stubborn: { engine: llamacpp, launch: ${JSON.stringify(launch)} }`,
    '',
  ].join('\n')
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
