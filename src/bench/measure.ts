/**
 * The bench client: one per target, owning its undici Agent. `measure()` calibrates the prompt
 * once per (input length, API), runs the rounds (closed- or open-loop), and reduces them to
 * per-round statistics, the steady state and the cell flags. Definitions and choices: README.md here.
 */
import type { Agent } from 'undici'
import type { Api, ScenarioPlan } from '../core/plan.js'
import type { EngineAdapter } from '../engines/types.js'
import { RequestError } from '../core/errors.js'
import { calibrate, type Calibration } from './calibrate.js'
import { cellFlags } from './flags.js'
import { httpPorts } from '../engines/http.js'
import { createAgent } from './http.js'
import { resolveModel } from './model.js'
import { promptText, requestBody } from './prompt.js'
import { sendStreamed, type StreamOutcome } from './request.js'
import { countReasons, steadyState, summarizeRound } from './round.js'
import { runRound } from './run-round.js'
import type { ErrorCount, MetricsBlock, RequestRecord, RoundResult } from '../core/measurements.js'

export interface BenchTarget {
  baseUrl: string
  adapter: EngineAdapter
  /** Model name sent in requests; when absent the client asks `/v1/models`. */
  model: string | undefined
  api: Api
  requestTimeoutMs: number
  /** Highest concurrency this client will be asked for (sizes the undici Agent). */
  maxConcurrency: number
}

export interface RoundProgress {
  round: number
  rounds: number
  done: number
  total: number
  errors: number
  /** Output tokens per second so far in this round. */
  tokensPerSecond: number
}

export interface MeasureOptions {
  scenario: ScenarioPlan
  rounds: number
  discard: number
  maxErrorShare: number
  seed: number
  /** Called when each round ends, and during a long round every `progressIntervalMs`. */
  onRound?: (p: RoundProgress) => void
  signal?: AbortSignal
  /** Mid-round progress interval (default 30 s). */
  progressIntervalMs?: number
}

export interface CellMeasurement {
  rounds: RoundResult[]
  /** Steady state: mean of each round statistic over rounds >= discard; null when no request succeeded. */
  metrics: MetricsBlock | null
  /** `lengths-missed: prompt 1000/1024`, `usage-missing`, `errors: 3/8 in round 2`, … */
  flags: string[]
  /** Every request of the kept rounds (for spec-decode stream counters). */
  requests: RequestRecord[]
  errors: ErrorCount[]
}

export interface BenchClient {
  /** One streamed 1-token request; throws a RequestError when it fails (readiness smoke test). */
  smoke(): Promise<void>
  measure(options: MeasureOptions): Promise<CellMeasurement>
  close(): Promise<void>
}

const DEFAULT_PROGRESS_MS = 30_000

function endpoint(baseUrl: string, path: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`)
}

export function createBenchClient(target: BenchTarget): BenchClient {
  let capacity = Math.max(1, target.maxConcurrency)
  let agent: Agent = createAgent({ connections: capacity, requestTimeoutMs: target.requestTimeoutMs })
  let closed = false
  // Model lookup and tokenize are small calls: the engines' port, not the streaming Agent.
  const ports = httpPorts()
  const url = endpoint(target.baseUrl, target.adapter.path(target.api))
  const calibrations = new Map<number, Promise<Calibration>>()
  let model: Promise<string> | undefined
  // Nonce index: unique over the client's life, so no two requests share a prefix.
  let sequence = 0
  const prompt = (fillerWords: number) => promptText(sequence++, fillerWords)

  const modelName = (): Promise<string> => {
    if (!model) {
      model = target.model !== undefined ? Promise.resolve(target.model) : resolveModel(ports, target.baseUrl, target.requestTimeoutMs)
      model.catch(() => (model = undefined))
    }
    return model
  }

  const sendPrompt = async (text: string, maxTokens: number, signal?: AbortSignal): Promise<StreamOutcome> => {
    const body = requestBody({ adapter: target.adapter, api: target.api, model: await modelName(), prompt: text, maxTokens })
    return sendStreamed(agent, { url, body, timeoutMs: target.requestTimeoutMs, signal, streamExtras: target.adapter.streamExtras })
  }

  const calibration = (inputTokens: number, signal?: AbortSignal): Promise<Calibration> => {
    let pending = calibrations.get(inputTokens)
    if (!pending) {
      pending = calibrateFor(inputTokens, signal)
      pending.catch(() => calibrations.delete(inputTokens))
      calibrations.set(inputTokens, pending)
    }
    return pending
  }

  const calibrateFor = async (inputTokens: number, signal?: AbortSignal): Promise<Calibration> => {
    const name = await modelName()
    const { adapter } = target
    const tokenize = adapter.tokenize?.bind(adapter)
    return calibrate(inputTokens, prompt, {
      tokenize: tokenize ? (text) => tokenize(ports, target.baseUrl, name, text).catch(() => undefined) : undefined,
      probe: async (text) => {
        const outcome = await sendPrompt(text, 1, signal)
        const e = outcome.error
        if (e) throw new RequestError(`prompt calibration (${inputTokens} tokens): ${e.message}`, e.kind, e.status)
        return outcome.tally.promptTokens
      },
    })
  }

  const ensureCapacity = async (inFlight: number) => {
    if (inFlight <= capacity) return
    // More sockets than any cell so far: a fresh Agent, so undici never queues a request out of our sight.
    const old = agent
    capacity = inFlight
    agent = createAgent({ connections: capacity, requestTimeoutMs: target.requestTimeoutMs })
    await old.close()
  }

  return {
    async smoke() {
      const outcome = await sendPrompt(prompt(0), 1)
      if (outcome.error) throw outcome.error
    },

    async measure(o) {
      if (closed) throw new Error('bench client is closed')
      const { scenario } = o
      const cal = await calibration(scenario.inputTokens, o.signal)
      await ensureCapacity(scenario.rate ? scenario.requests : scenario.concurrency)
      // The last round is always steady, whatever `discard` says.
      const discard = Math.max(0, Math.min(o.discard, o.rounds - 1))
      const rounds: RoundResult[] = []
      const kept: RequestRecord[] = []
      for (let r = 0; r < o.rounds && !o.signal?.aborted; r++) {
        const progress = (done: number, errors: number, tokensPerSecond: number) =>
          o.onRound?.({ round: r, rounds: o.rounds, done, total: scenario.requests, errors, tokensPerSecond })
        const records = await runRound({
          scenario,
          round: r,
          rounds: o.rounds,
          seed: o.seed,
          calibration: cal,
          send: (fillerWords, maxTokens, signal) => sendPrompt(prompt(fillerWords), maxTokens, signal),
          signal: o.signal,
          progress: o.onRound ? progress : undefined,
          progressIntervalMs: o.progressIntervalMs ?? DEFAULT_PROGRESS_MS,
        })
        const steady = r >= discard
        const result = summarizeRound({ index: r, steady, concurrency: scenario.rate ? null : Math.min(scenario.concurrency, scenario.requests), endedAt: performance.now() }, records)
        rounds.push(result)
        if (steady) kept.push(...records)
        progress(records.length, result.errors, result.metrics.output_tps)
      }
      if (o.signal?.aborted) throw new RequestError('measurement aborted', 'aborted')
      return {
        rounds,
        metrics: steadyState(rounds),
        flags: cellFlags(scenario, rounds, kept, o.maxErrorShare),
        requests: kept,
        errors: mergeErrors(rounds),
      }
    },

    async close() {
      if (closed) return
      closed = true
      await agent.destroy()
    },
  }
}

function mergeErrors(rounds: readonly RoundResult[]): ErrorCount[] {
  return countReasons(rounds.flatMap((r) => r.errorReasons.map((e) => [e.reason, e.count] as const)))
}
