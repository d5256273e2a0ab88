/**
 * The bench client: one per target. `measure()` calibrates the prompt once per input length,
 * makes room for the cell's concurrency in the client's Agent, and runs the rounds (closed- or
 * open-loop). Definitions and choices: README.md here.
 */
import { isGenerated, type Api, type GeneratedPrompts } from '../core/plan.js'
import type { RequestError } from '../core/errors.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'
import { httpPorts } from '../engines/http.js'
import { createAgentPool, type AgentPool } from './stream/agent-pool.js'
import {
  createCalibrator,
  onceEach,
  promptCounters,
  type Calibrator,
  type CalibratorOptions,
} from './prompts/calibrator.js'
import { servedModel } from './stream/model.js'
import { sharedPrefix, type SharedPrefix } from './prompts/prefix.js'
import { promptText, requestBody, type ChatMessage } from './prompts/prompt.js'
import type { StreamOutcome } from './stream/request.js'
import { createSender } from './stream/send.js'
import { textSupply } from './prompts/text-fit.js'
import { textPrompt } from './prompts/text-prompt.js'
import { promptIndices } from './prompts/indices.js'
import { runRounds, type CellMeasurement, type MeasureOptions } from './rounds/rounds.js'
import type { RoundRun } from './rounds/run-round.js'
import { joinUrl } from '../core/url.js'
import { fnv1a } from '../core/hash.js'

export type { CellMeasurement, MeasureOptions, RoundProgress } from './rounds/rounds.js'

export interface BenchTarget {
  baseUrl: string
  adapter: EngineAdapter
  /** Model name sent in requests; when absent the client asks `/v1/models`. */
  model: string | undefined
  api: Api
  requestTimeoutMs: number
  /** Highest concurrency this client will be asked for (sizes the undici Agent). */
  maxConcurrency: number
  /** Extra fields of every request body (`request-body`). */
  requestBody?: Readonly<Record<string, unknown>>
}

export interface BenchClient {
  /** One streamed 1-token request; throws a RequestError when it fails (readiness smoke test). */
  smoke(): Promise<void>
  measure(options: MeasureOptions): Promise<CellMeasurement>
  /**
   * One untimed greedy request that may stop at end-of-sequence: the streamed text (its first
   * DEGENERATE_SAMPLE_CHARS characters), or the error that ended it. For the quality probe.
   */
  /** One untimed request; `outputTokens` is the server's count when it reported usage. */
  complete(
    prompt: string,
    maxTokens: number,
    options?: { api?: Api; signal?: AbortSignal },
  ): Promise<{ text: string; outputTokens?: number; error?: RequestError }>
  /**
   * One untimed request shaped like the benchmark's (a filler prompt calibrated to `inputTokens`, `ignore_eos`,
   * the target's API and request body, temperature 0), whose prompt is the same in every run for the same
   * `index`: its greedy output can be compared with a baseline's.
   */
  benchmarkShaped(
    inputTokens: number,
    maxTokens: number,
    index: number,
    signal?: AbortSignal,
  ): Promise<{ text: string; error?: RequestError }>
  close(): Promise<void>
}

/** Nonce indices of benchmark-shaped greedy prompts: far from the benchmark's own, which count from 0. */
const BENCHMARK_SHAPED_NONCE = 1_000_000_000

export function createBenchClient(target: BenchTarget): BenchClient {
  const { baseUrl, requestTimeoutMs } = target
  const pool = createAgentPool({ connections: target.maxConcurrency, requestTimeoutMs })
  // Model lookup and tokenize are small calls: the engines' port, not the streaming Agent.
  const ports = httpPorts()
  const modelName = servedModel(target.model, ports, baseUrl, requestTimeoutMs)
  const sendPrompt = promptSender(target, pool, modelName)
  const { prompt, calibration, measureText, measureWords } = clientPrompts({
    target,
    ports,
    modelName,
    send: sendPrompt,
    pool,
  })

  let closed = false
  const open = () => {
    if (closed) throw new Error('bench client is closed')
  }
  return {
    async smoke() {
      const outcome = await sendPrompt(prompt(0), 1)
      if (outcome.error) throw outcome.error
    },
    async measure(o) {
      open()
      return isGenerated(o.scenario.prompts) ? measureText(o) : measureWords(o)
    },
    async complete(text, maxTokens, options = {}) {
      open()
      const outcome = await sendPrompt(text, maxTokens, options.signal, { api: options.api ?? target.api })
      const outputTokens = outcome.tally.completionTokens
      return {
        text: outcome.tally.sample,
        ...(outputTokens !== undefined && { outputTokens }),
        ...(outcome.error && { error: outcome.error }),
      }
    },
    async benchmarkShaped(inputTokens, maxTokens, index, signal) {
      open()
      const cal = await calibration(inputTokens, signal)
      const outcome = await sendPrompt(promptText(BENCHMARK_SHAPED_NONCE + index, cal.fillerWords), maxTokens, signal)
      return { text: outcome.tally.sample, ...(outcome.error && { error: outcome.error }) }
    },
    async close() {
      if (closed) return
      closed = true
      await pool.destroy()
    },
  }
}

interface PromptParts {
  target: BenchTarget
  ports: HttpPorts
  modelName: () => Promise<string>
  send: SendPrompt
  pool: AgentPool
}

/** A client's prompts: word-list prompts and their calibrations, and the text cells, over one request counter. */
function clientPrompts(o: PromptParts) {
  const { ports, modelName } = o
  const { adapter, baseUrl } = o.target
  // Nonce indices: unique over the client's life, so no two requests share a prefix, and each cell's the same in
  // every run (indices.ts).
  const indices = promptIndices()
  const prompt = (fillerWords: number) => promptText(indices.service(), fillerWords)
  const cellPrompt = (cell: string) => (fillerWords: number) => promptText(indices.cell(cell), fillerWords)
  const tokenize = adapter.tokenize?.bind(adapter)
  const options = (build: (fillerWords: number) => string, tokenizeSettled?: boolean): CalibratorOptions => ({
    prompt: build,
    modelName,
    tokenize: tokenize && ((model, text) => tokenize(ports, baseUrl, model, text)),
    probe: (text, signal) => o.send(text, 1, signal),
    ...(tokenizeSettled && { tokenizeSettled }),
  })
  const calibrator = (build: (fillerWords: number) => string, tokenizeSettled?: boolean) =>
    createCalibrator(options(build, tokenizeSettled))
  const measureText = textCells({
    calibration: (kind) => calibrator((fillerWords) => textPrompt(indices.service(), fillerWords, 0, kind), true),
    next: (cell) => indices.cell(cell),
    count: tokenize && (async (t) => tokenize(ports, baseUrl, await modelName(), t).catch(() => undefined)),
    ensure: (connections) => o.pool.ensure(connections),
    send: o.send,
  })
  const calibration = calibrator(prompt)
  const measureWords = measurer({
    pool: o.pool,
    sendPrompt: o.send,
    cellPrompt,
    calibration,
    prefixes: prefixCalibrator(options(prompt)),
  })
  return { prompt, calibration, measureText, measureWords }
}

/** Word-list cells: the scenario's shared prefix (if any) and prompt length calibrated, then the rounds. */
function measurer(c: {
  pool: AgentPool
  sendPrompt: SendPrompt
  /** A cell's next prompt of `fillerWords` filler words. */
  cellPrompt: (cell: string) => (fillerWords: number) => string
  calibration: Calibrator
  prefixes: ReturnType<typeof prefixCalibrator>
}) {
  return async (o: MeasureOptions): Promise<CellMeasurement> => {
    const { scenario } = o
    const shared = scenario.prefixTokens ? await c.prefixes(scenario.id, scenario.prefixTokens, o.signal) : undefined
    const cal = await c.calibration(scenario.inputTokens, o.signal, shared?.text)
    await c.pool.ensure(scenario.rate ? scenario.requests : scenario.concurrency)
    const prompt = c.cellPrompt(scenario.id)
    const text = (fillerWords: number) => (shared ? `${shared.text} ${prompt(fillerWords)}` : prompt(fillerWords))
    const send: RoundRun['send'] = (fillerWords, maxTokens, signal) =>
      c.sendPrompt(text(fillerWords), maxTokens, signal, undefined, shared !== undefined, scenario.thinking)
    // A conversation's turns share their prefix with the turn before: engines that can cache it should.
    const conversation = scenario.turns && {
      message: prompt,
      turn: await c.calibration(scenario.turnTokens ?? 1, o.signal),
      send: (messages: readonly ChatMessage[], maxTokens: number, signal?: AbortSignal) =>
        c.sendPrompt(messages, maxTokens, signal, undefined, true, scenario.thinking),
    }
    return runRounds(o, cal, send, undefined, conversation || undefined)
  }
}

/** Each scenario's shared prefix, calibrated once a client; a failed calibration is forgotten. */
function prefixCalibrator(o: CalibratorOptions) {
  const once = onceEach<SharedPrefix>()
  return (scenario: string, tokens: number, signal?: AbortSignal): Promise<SharedPrefix> =>
    once(`${scenario}\n${tokens}`, async () =>
      sharedPrefix(scenario, tokens, await promptCounters(o, `shared prefix of ${tokens} tokens`, signal)),
    )
}

interface TextCells {
  /** A calibrator of one generated kind's prompts. */
  calibration: (kind: GeneratedPrompts) => Calibrator
  /** The named cell's next prompt index. */
  next: (cell: string) => number
  /** The engine's tokenizer for the served model; undefined when the engine has none. */
  count?: (text: string) => Promise<number | undefined>
  ensure: (connections: number) => Promise<void>
  send: SendPrompt
}

/**
 * `prompts: text | code | math` cells: calibrated once per kind and length, each round's prompts fitted before it
 * starts (text-fit.ts).
 */
function textCells(t: TextCells): (o: MeasureOptions) => Promise<CellMeasurement> {
  const calibrators = new Map<GeneratedPrompts, Calibrator>()
  return async (o) => {
    const kind = isGenerated(o.scenario.prompts) ? o.scenario.prompts : 'text'
    if (!calibrators.has(kind)) calibrators.set(kind, t.calibration(kind))
    const cal = await calibrators.get(kind)!(o.scenario.inputTokens, o.signal)
    await t.ensure(o.scenario.rate ? o.scenario.requests : o.scenario.concurrency)
    const supply = textSupply(cal, o.scenario.inputTokens, () => t.next(o.scenario.id), t.count, kind)
    return runRounds(
      o,
      supply.calibration,
      (_fillerWords, maxTokens, signal) =>
        t.send(supply.next(), maxTokens, signal, undefined, undefined, o.scenario.thinking),
      (requests, signal) => supply.prepare(requests, signal),
    )
  }
}

type SendPrompt = (
  /** One user message's text, or a conversation's messages (the chat API; the answer is then kept). */
  text: string | readonly ChatMessage[],
  maxTokens: number,
  signal?: AbortSignal,
  probe?: { api: Api },
  /** The prompt starts with its scenario's shared prefix (`prefix-tokens`). */
  sharedPrefix?: boolean,
  /** The chat template's `enable_thinking` (`thinking`). */
  thinking?: boolean,
) => Promise<StreamOutcome>

/**
 * One streamed request of a prompt through the pool: a benchmark request (`ignore_eos`, the target's API), or
 * with `probe` an untimed one that honours end of sequence, in the probe's API.
 */
function promptSender(target: BenchTarget, pool: AgentPool, modelName: () => Promise<string>): SendPrompt {
  const { adapter, baseUrl, requestTimeoutMs } = target
  const send = createSender({ pool, freshConnection: adapter.freshConnectionPerRequest === true, requestTimeoutMs })
  const urls = {
    completions: new URL(joinUrl(baseUrl, adapter.path('completions'))),
    chat: new URL(joinUrl(baseUrl, adapter.path('chat'))),
  }
  return async (text, maxTokens, signal, probe, sharedPrefix, thinking) => {
    const api = probe?.api ?? target.api
    const messages = typeof text === 'string' ? undefined : text
    const prompt = typeof text === 'string' ? text : JSON.stringify(text)
    const body = requestBody({
      adapter,
      api,
      model: await modelName(),
      prompt,
      maxTokens,
      ignoreEos: !probe,
      extra: target.requestBody,
      sharedPrefix,
      ...(messages && { messages }),
      ...(thinking !== undefined && { thinking }),
    })
    const outcome = await send({
      url: urls[api],
      body,
      timeoutMs: requestTimeoutMs,
      signal,
      streamExtras: adapter.streamExtras,
      maxTokens,
      keepAnswer: messages !== undefined,
    })
    return { ...outcome, prompt: fnv1a(prompt) }
  }
}
