/**
 * One streamed, bounded scrape against loopback servers: the body is read a line at a time as it arrives, only the
 * named series are kept, and reading stops at the cap (the line it cuts through dropped, the connection closed).
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { scrapeSeries } from '../../src/engines/scrape.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r))
})

/** A server whose handler writes the answer; resolves its /metrics URL and what it saw of each connection. */
async function serve(handler: (res: ServerResponse) => void) {
  const seen = { closedEarly: 0 }
  const server = createServer((_req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) seen.closedEarly++
    })
    res.on('error', () => undefined)
    handler(res)
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, seen }
}

const LIMITS = { timeoutMs: 2000, maxBytes: 1024 * 1024 }
const NAMES = ['vllm:num_requests_running', 'vllm:num_preemptions_total']

describe('scrapeSeries', () => {
  it('keeps only the named series, read across chunks split mid-line and mid-character', async () => {
    const body = Buffer.from(
      [
        'vllm:num_requests_running{model_name="qwen-ü"} 3',
        'vllm:other_total 9',
        'vllm:num_preemptions_total{model_name="é"} 7',
        'vllm:num_requests_running{model_name="qwen-ü"} 1',
      ].join('\n'),
    )
    const { url } = await serve((res) => {
      res.writeHead(200)
      // One byte at a time: every line and the two-byte characters arrive split.
      const write = (i: number) =>
        i < body.length ? res.write(body.subarray(i, i + 1), () => write(i + 1)) : res.end()
      write(0)
    })
    expect(await scrapeSeries(url, NAMES, LIMITS)).toEqual({
      values: { 'vllm:num_requests_running': 4, 'vllm:num_preemptions_total': 7 },
      bytes: body.length,
      cut: false,
    })
  })

  it('stops at the cap: the line it cuts is dropped, what follows is never read, the connection is closed', async () => {
    const head = 'vllm:num_requests_running 2\n'
    const filler = '# padding\n'.repeat(100)
    // The preemption line straddles the cap: `vllm:num_preemptions_total 12345` cut to `…total 12`.
    const straddling = 'vllm:num_preemptions_total 12345\n'
    const maxBytes = head.length + filler.length + straddling.indexOf('12') + 2
    // Then 64 MiB, a MiB at a time as the socket takes it: more than any socket buffers hold.
    const mib = Buffer.from('vllm:num_requests_running 40\n'.repeat(36_157))
    const { url, seen } = await serve((res) => {
      res.writeHead(200)
      res.write(head + filler + straddling)
      let left = 64
      const more = () => {
        while (left > 0 && !res.destroyed) {
          left--
          if (!res.write(mib)) return res.once('drain', more)
        }
        if (!res.destroyed) res.end()
      }
      more()
    })
    const scrape = await scrapeSeries(url, NAMES, { ...LIMITS, maxBytes })
    expect(scrape).toEqual({ values: { 'vllm:num_requests_running': 2 }, bytes: maxBytes, cut: true })
    // The server saw the connection closed before it could send the rest.
    await expect.poll(() => seen.closedEarly, { timeout: 5000 }).toBe(1)
  })

  it('a body that ends without a newline still gives its last line', async () => {
    const { url } = await serve((res) => {
      res.writeHead(200)
      res.end('vllm:num_preemptions_total 5')
    })
    expect((await scrapeSeries(url, NAMES, LIMITS))?.values).toEqual({ 'vllm:num_preemptions_total': 5 })
  })

  it('gives nothing for a non-200 answer, a connection cut mid-body, a refused connection or a silent server', async () => {
    const notFound = await serve((res) => {
      res.writeHead(404)
      res.end('vllm:num_preemptions_total 5\n')
    })
    expect(await scrapeSeries(notFound.url, NAMES, LIMITS)).toBeUndefined()
    const cut = await serve((res) => {
      res.writeHead(200, { 'content-length': '1000' })
      res.write('vllm:num_preemptions_total 5\n')
      setTimeout(() => res.socket?.destroy(), 20)
    })
    expect(await scrapeSeries(cut.url, NAMES, LIMITS)).toBeUndefined()
    expect(await scrapeSeries('http://127.0.0.1:1/metrics', NAMES, LIMITS)).toBeUndefined()
    const silent = await serve(() => undefined)
    const started = performance.now()
    expect(await scrapeSeries(silent.url, NAMES, { ...LIMITS, timeoutMs: 150 })).toBeUndefined()
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })
})
