/**
 * Client overhead benchmark: `npx tsx bench/client.ts [--ttft MS] [--interval MS] [--tokens N]`.
 *
 * The scheduled server runs in a child process (so this process's CPU time is the client's
 * alone) and streams on an exact schedule. For each concurrency it prints how far measured
 * TTFT and TPOT land from the schedule, and splits the TTFT error along the request's path
 * using both processes' `performance.timeOrigin + now()` clocks:
 *   send   = client send time → server saw the request (client dispatch, loopback, server accept)
 *   server = server saw it → wrote the first token, minus the scheduled TTFT (server ingestion, timer slip)
 *   read   = server wrote the first token → client parsed it (the client's own read latency)
 * and the client's CPU time per streamed token (process.cpuUsage).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { parseArgs } from 'node:util'
import { createBenchClient } from '../src/bench/measure.js'
import { percentile } from '../src/core/stats.js'
import type { EngineAdapter } from '../src/engines/types.js'
import { startScheduledServer } from '../harness/scheduled-server.js'

const CONCURRENCY = [1, 16, 64, 256]

interface Seen {
  user: string
  arrivedAt: number
  firstTokenAt?: number
}

async function serve(ttftMs: number, intervalMs: number): Promise<void> {
  const server = await startScheduledServer({ ttftMs, intervalMs })
  process.on('message', () => {
    const seen: Seen[] = server.requests
      .splice(0)
      .map((r) => ({ user: String(r.body.user), arrivedAt: r.arrivedAt, firstTokenAt: r.firstTokenAt }))
    process.send?.({ seen })
  })
  process.once('disconnect', () => void server.close().then(() => process.exit(0)))
  process.send?.({ url: server.url })
}

function ask<T>(child: ChildProcess, key: string, send: boolean): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, T>) => {
      if (!(key in m)) return
      child.off('message', onMessage)
      resolve(m[key])
    }
    child.on('message', onMessage)
    if (send) child.send('report')
  })
}

const q = (xs: number[], p: number) =>
  xs.length
    ? percentile(
        [...xs].sort((a, b) => a - b),
        p,
      )
    : NaN
const pair = (xs: number[], digits = 2) =>
  `${q(xs, 50).toFixed(digits).padStart(7)} ${q(xs, 99).toFixed(digits).padStart(7)}`

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean' },
      ttft: { type: 'string' },
      interval: { type: 'string' },
      tokens: { type: 'string' },
    },
  })
  const ttftMs = Number(values.ttft ?? 100)
  const intervalMs = Number(values.interval ?? 10)
  const tokens = Number(values.tokens ?? 32)
  if (values.serve) return serve(ttftMs, intervalMs)

  let tag = 0
  // Tags requests in send order, so server-side times can be matched to client records.
  const adapter: EngineAdapter = {
    name: 'bench',
    needsLaunchOrUrl: true,
    healthPath: '/v1/models',
    readiness: () => 'ready',
    path: () => '/v1/completions',
    transformRequest: (body) => ({ ...body, user: `b${tag++}` }),
    info: async () => ({}),
  }
  const child = fork(process.argv[1], ['--serve', '--ttft', String(ttftMs), '--interval', String(intervalMs)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    const url = await ask<string>(child, 'url', false)
    console.log(
      `schedule: TTFT ${ttftMs} ms, then a token every ${intervalMs} ms, ${tokens} tokens; 2 rounds per concurrency; server in a child process`,
    )
    console.log('all figures ms (p50 p99) except CPU; TTFT err = measured − scheduled = send + server + read')
    console.log(
      '   conc  reqs |   TTFT err p50/p99 |       send p50/p99 |     server p50/p99 |       read p50/p99 |   TPOT err p50/p99 | CPU µs/tok |  tok/s',
    )
    for (const concurrency of CONCURRENCY) {
      const client = createBenchClient({
        baseUrl: url,
        adapter,
        model: 'm',
        api: 'completions',
        requestTimeoutMs: 60_000,
        maxConcurrency: concurrency,
      })
      try {
        const scenario = {
          id: `c${concurrency}`,
          inputTokens: 64,
          outputTokens: tokens,
          concurrency,
          requests: Math.max(concurrency, 8),
        }
        // Warm-up (prompt calibration, sockets) outside the measured CPU time.
        await client.measure({
          scenario: { ...scenario, requests: concurrency },
          rounds: 1,
          discard: 0,
          maxErrorShare: 0,
          seed: 1,
        })
        await ask<Seen[]>(child, 'seen', true)
        const first = tag
        const cpu = process.cpuUsage()
        const m = await client.measure({ scenario, rounds: 2, discard: 0, maxErrorShare: 0, seed: 1 })
        const used = process.cpuUsage(cpu)
        const seen = new Map((await ask<Seen[]>(child, 'seen', true)).map((s) => [s.user, s]))
        const records = [...m.requests].sort((a, b) => a.sentAt - b.sentAt)
        const ok = records.filter((r) => r.ok)
        const origin = performance.timeOrigin
        const send: number[] = []
        const server: number[] = []
        const read: number[] = []
        records.forEach((r, i) => {
          const s = seen.get(`b${first + i}`)
          if (!r.ok || !s?.firstTokenAt) return
          send.push(s.arrivedAt - (origin + r.sentAt))
          server.push(s.firstTokenAt - s.arrivedAt - ttftMs)
          read.push(origin + r.sentAt + r.ttftMs - s.firstTokenAt)
        })
        const streamed = ok.reduce((n, r) => n + r.outputTokens, 0)
        const row = [
          `${String(concurrency).padStart(7)} ${String(ok.length).padStart(5)}`,
          pair(ok.map((r) => r.ttftMs - ttftMs)),
          pair(send),
          pair(server),
          pair(read),
          pair(
            ok.map((r) => (r.e2eMs - r.ttftMs) / (r.outputTokens - 1) - intervalMs),
            3,
          ),
          ((used.user + used.system) / streamed).toFixed(1).padStart(10),
          (m.metrics?.output_tps ?? 0).toFixed(0).padStart(6),
        ]
        console.log(row.join(' | ') + (m.errors.length ? `  errors: ${JSON.stringify(m.errors)}` : ''))
      } finally {
        await client.close()
      }
    }
  } finally {
    child.disconnect()
  }
}

await main()
