/**
 * The scrapes of one round, off the thread that times it: the engine's series read before the round, its gauges
 * sampled during it, and the series read after it.
 *
 * Why a worker thread rather than scraping only between rounds: the gauges (requests waiting and running, KV-cache
 * usage) say what happened under load, and a queue that builds during a round is gone after it, so they are sampled
 * during the round. But every scrape read and parsed on the event loop
 * that reads the SSE streams holds each token read behind it: a 7 MiB endpoint held that loop 50–110 ms a scrape and
 * turned a 20 ms inter-token schedule's p99 into 250 ms. So the whole round's scraping runs in a worker thread, with
 * its own event loop, sockets and timers (https://nodejs.org/api/worker_threads.html); the measuring thread starts it
 * before the round, posts `stop` after it, and gets back a few numbers per sample.
 *
 * The worker script is the bundle's `scrape-worker/index.js` next to the running bundle. Where there is none (the
 * sources run directly) or the worker cannot start, the same loop runs in this thread, still bounded by the cap.
 */
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Worker, parentPort, workerData } from 'node:worker_threads'
import { scrapeSeries } from '../engines/scrape.js'
import type { Counters } from '../engines/types.js'

/** What the round's scrapes read, as plain data (it crosses threads). */
export interface ScrapeSpec {
  url: string
  names: string[]
  /** Gauges are sampled every this many ms during the round. */
  sampleMs: number
  timeoutMs: number
  maxBytes: number
}

export interface RoundReadings {
  before?: Counters
  after?: Counters
  samples: Counters[]
  /** Where a scrape stopped reading a body that went on past the cap (bytes), when one did. */
  cutAt?: number
}

export interface RoundScrape {
  /** Ends the sampling, reads the series once more and returns everything read; never throws. */
  stop(): Promise<RoundReadings>
}

type WorkerMessage = { type: 'started' } | { type: 'readings'; readings: RoundReadings }

/** Starts the round's scrapes (in a worker running `script`, if given) once the reading before the round is done. */
export function startRoundScrape(spec: ScrapeSpec, script: string | undefined): Promise<RoundScrape> {
  return script ? inWorker(spec, script) : scrapeRound(spec)
}

/** `dist/scrape-worker/index.js`, seen from the action (`dist/index.js`) or the CLI (`dist/cli/index.js`). */
export function bundledScrapeWorker(entry = process.argv[1] ?? ''): string | undefined {
  // The CLI may be started through a bin symlink: look next to the file it points to.
  const dir = dirname(existsSync(entry) ? realpathSync(entry) : entry)
  return [join(dir, 'scrape-worker', 'index.js'), join(dir, '..', 'scrape-worker', 'index.js')].find((path) =>
    existsSync(path),
  )
}

/** The round's scrapes in this thread. */
export async function scrapeRound(spec: ScrapeSpec): Promise<RoundScrape> {
  let cutAt: number | undefined
  const read = async (): Promise<Counters | undefined> => {
    const scrape = await scrapeSeries(spec.url, spec.names, spec)
    if (scrape?.cut) cutAt = Math.max(cutAt ?? 0, scrape.bytes)
    return scrape && Object.keys(scrape.values).length ? scrape.values : undefined
  }
  const before = await read()
  const sampler = gaugeSampler(read, spec.sampleMs)
  return {
    async stop() {
      const samples = await sampler.stop()
      const after = await read()
      return { before, after, samples, ...(cutAt !== undefined && { cutAt }) }
    },
  }
}

/** One scrape after another, each `sampleMs` after the previous one began, until stopped; the samples taken. */
function gaugeSampler(read: () => Promise<Counters | undefined>, sampleMs: number) {
  const samples: Counters[] = []
  let stopped = false
  let wake: (() => void) | undefined
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        wake = resolve
        setTimeout(resolve, sampleMs).unref()
      })
      if (stopped) return
      const sample = await read()
      if (sample && !stopped) samples.push(sample)
    }
  })()
  return {
    async stop(): Promise<Counters[]> {
      stopped = true
      wake?.()
      await loop
      return samples
    },
  }
}

/**
 * The round's scrapes in a worker. It never keeps the process alive and is terminated once it answered; one that
 * does not start falls back to this thread, and one that does not answer `stop` within two scrapes' deadlines gives
 * the round no readings.
 */
async function inWorker(spec: ScrapeSpec, script: string): Promise<RoundScrape> {
  let worker: Worker
  try {
    worker = new Worker(script, { workerData: spec })
  } catch {
    return scrapeRound(spec)
  }
  worker.unref()
  const gone = new Promise<void>((resolve) => {
    worker.on('error', () => resolve())
    worker.once('exit', () => resolve())
  })
  const heard = (type: WorkerMessage['type'], ms: number) =>
    new Promise<WorkerMessage | undefined>((resolve) => {
      const done = (m?: WorkerMessage) => {
        clearTimeout(timer)
        worker.off('message', listener)
        resolve(m)
      }
      const listener = (m: WorkerMessage) => m.type === type && done(m)
      const timer = setTimeout(done, ms)
      worker.on('message', listener)
      void gone.then(() => done())
    })
  // Starting a worker takes tens of milliseconds; the first scrape then has its own deadline.
  if (!(await heard('started', spec.timeoutMs + 10_000))) {
    await worker.terminate()
    return scrapeRound(spec)
  }
  return {
    async stop() {
      const answer = heard('readings', 2 * spec.timeoutMs + 1000)
      worker.postMessage('stop')
      const m = await answer
      await worker.terminate()
      return m?.type === 'readings' ? m.readings : { samples: [] }
    },
  }
}

/** The worker's side: scrape from the start, and on `stop` answer with the readings. */
export async function runScrapeWorker(): Promise<void> {
  const port = parentPort
  if (!port) throw new Error('the scrape worker runs only as a worker thread')
  const scrape = await scrapeRound(workerData as ScrapeSpec)
  port.once('message', () => {
    void scrape.stop().then((readings) => {
      port.postMessage({ type: 'readings', readings } satisfies WorkerMessage)
      port.close()
    })
  })
  port.postMessage({ type: 'started' } satisfies WorkerMessage)
}
