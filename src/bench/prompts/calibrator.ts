/**
 * A client's prompt calibrations: one per input length and shared prefix (a client speaks one API, so those
 * are the whole key), shared by every cell that asks for it. A failed calibration is forgotten,
 * so the next cell tries again instead of inheriting the error.
 */
import { RequestError } from '../../core/errors.js'
import { calibrate, type Calibration, type PromptCounters } from './calibrate.js'
import type { StreamOutcome } from '../stream/request.js'

export interface CalibratorOptions {
  /** A fresh unique prompt with this many filler words. */
  prompt: (fillerWords: number) => string
  modelName: () => Promise<string>
  /** The engine's tokenizer for the served model, when it has one. */
  tokenize?: (model: string, text: string) => Promise<number | undefined>
  /** Streams `text` with a 1-token completion. */
  probe: (text: string, signal?: AbortSignal) => Promise<StreamOutcome>
  /** Count the settled prompt with the tokenizer too (`Calibration.tokenized`), for prompts fitted one by one. */
  tokenizeSettled?: boolean
}

/** The filler length for prompts of `inputTokens`, after `prefix` (a scenario's shared prefix) when given. */
export type Calibrator = (inputTokens: number, signal?: AbortSignal, prefix?: string) => Promise<Calibration>

export function createCalibrator(o: CalibratorOptions): Calibrator {
  const once = onceEach<Calibration>()
  return (inputTokens, signal, prefix) =>
    once(`${inputTokens}\n${prefix ?? ''}`, () => calibrateLength(o, inputTokens, signal, prefix))
}

/**
 * One pending answer per key, shared by every caller that asks for it while it stands; a failed one is forgotten,
 * so the next caller tries again instead of inheriting the error.
 */
export function onceEach<T>(): (key: string, run: () => Promise<T>) => Promise<T> {
  const answers = new Map<string, Promise<T>>()
  return (key, run) => {
    let pending = answers.get(key)
    if (!pending) {
      pending = run()
      pending.catch(() => answers.delete(key))
      answers.set(key, pending)
    }
    return pending
  }
}

async function calibrateLength(
  o: CalibratorOptions,
  inputTokens: number,
  signal?: AbortSignal,
  prefix?: string,
): Promise<Calibration> {
  const counters = await promptCounters(o, `${inputTokens} tokens`, signal)
  const own = prefix === undefined ? o.prompt : (words: number) => `${prefix} ${o.prompt(words)}`
  // A count from usage is of the last prompt calibrate() built with the filler length it returns.
  const built = new Map<number, string>()
  const prompt = o.tokenizeSettled
    ? (fillerWords: number) => {
        const text = own(fillerWords)
        built.set(fillerWords, text)
        return text
      }
    : own
  const calibration = await calibrate(
    inputTokens,
    prompt,
    counters,
    prefix === undefined ? 0 : prefix.split(' ').length,
  )
  const count = counters.tokenize
  if (!o.tokenizeSettled || !count || calibration.source === 'estimate') return calibration
  // Without usage the tokenizer's count is all there is, and it is the one calibrate() returned.
  if (calibration.source === 'tokenize') return { ...calibration, tokenized: calibration.promptTokens }
  const settled = built.get(calibration.fillerWords)
  const tokenized = settled === undefined ? undefined : await count(settled)
  return tokenized === undefined ? calibration : { ...calibration, tokenized }
}

/** The server's counts of a text: its tokenizer where it has one, and real 1-token requests; `what` names errors. */
export async function promptCounters(
  o: CalibratorOptions,
  what: string,
  signal?: AbortSignal,
): Promise<PromptCounters> {
  const name = await o.modelName()
  const { tokenize } = o
  return {
    // A tokenizer that fails only costs the shortcut: the real requests still steer the search.
    tokenize: tokenize ? (text) => tokenize(name, text).catch(() => undefined) : undefined,
    probe: async (text) => {
      const outcome = await o.probe(text, signal)
      const e = outcome.error
      if (e) throw new RequestError(`prompt calibration (${what}): ${e.message}`, e.kind, e.status)
      return outcome.tally.promptTokens
    },
  }
}
