/**
 * One bounded read of an engine's Prometheus endpoint that keeps only the named series: the body is read as it
 * streams in, a complete line at a time (`seriesSums`), and reading stops at `maxBytes`, closing the connection.
 * A busy engine's endpoint is mostly histogram buckets (vLLM exports several per engine rank and model, each with
 * a dozen or more `le` buckets), none of which an adapter names; nothing of them is kept beyond the line being read.
 * A line cut at the cap is dropped, not parsed: `12345` cut to `12` would be a wrong value, not a missing one.
 */
import http from 'node:http'
import https from 'node:https'
import { StringDecoder } from 'node:string_decoder'
import { seriesSums } from './prometheus.js'
import type { Counters } from './types.js'

/**
 * What one scrape reads at most. vLLM's endpoint is a few hundred KiB for one engine rank and model; a data-parallel
 * server with several ranks is still well under this. Past it, the series after the cap are missing for that scrape.
 */
export const SCRAPE_MAX_BYTES = 2 * 1024 * 1024

/** One scrape's deadline: a slow endpoint costs a sample, never the round. */
export const SCRAPE_TIMEOUT_MS = 2000

export interface ScrapeLimits {
  timeoutMs: number
  maxBytes: number
}

export interface Scrape {
  /** The named series the endpoint gave, each summed over its label sets (finite values only). */
  values: Counters
  /** Bytes of the body read. */
  bytes: number
  /** The body went on past `maxBytes`: reading stopped there, and a series served after it is missing. */
  cut: boolean
}

/** The named series at `url`, or undefined when it did not answer 200 in time or the connection failed mid-body. */
export function scrapeSeries(url: string, names: readonly string[], limits: ScrapeLimits): Promise<Scrape | undefined> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Promise.resolve(undefined)
  }
  const client = parsed.protocol === 'https:' ? https : http
  return new Promise((resolve) => {
    let settled = false
    const headers = { connection: 'close', accept: 'text/plain' }
    const request = client.get(parsed, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return finish(undefined)
      readBody(res, names, limits.maxBytes, finish)
    })
    const timer = setTimeout(() => finish(undefined), limits.timeoutMs)
    request.on('error', () => finish(undefined))
    function finish(scrape: Scrape | undefined): void {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      resolve(scrape)
    }
  })
}

function readBody(
  res: http.IncomingMessage,
  names: readonly string[],
  maxBytes: number,
  finish: (scrape: Scrape | undefined) => void,
): void {
  const sums = seriesSums(names)
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let bytes = 0
  const feed = (text: string) => {
    const lines = (pending + text).split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) sums.add(line)
  }
  res.on('data', (chunk: Buffer) => {
    const room = maxBytes - bytes
    if (chunk.length <= room) {
      bytes += chunk.length
      return feed(decoder.write(chunk))
    }
    bytes += room
    feed(decoder.write(chunk.subarray(0, room)))
    // The line the cap cut through is dropped.
    finish({ values: sums.sums(), bytes, cut: true })
  })
  res.on('end', () => {
    feed(decoder.end())
    if (pending) sums.add(pending)
    finish({ values: sums.sums(), bytes, cut: false })
  })
  // Closed before its end (and not by us): what arrived is a partial body, so the scrape gave nothing.
  res.on('close', () => finish(undefined))
  res.on('error', () => finish(undefined))
}
