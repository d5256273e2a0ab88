/**
 * A client's prompt calibrations: one per input length (a client speaks one API, so the length
 * is the whole key), shared by every cell that asks for it. A failed calibration is forgotten,
 * so the next cell tries again instead of inheriting the error.
 */
import { RequestError } from '../core/errors.js'
import { calibrate, type Calibration } from './calibrate.js'
import type { StreamOutcome } from './request.js'

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

export type Calibrator = (inputTokens: number, signal?: AbortSignal) => Promise<Calibration>

export function createCalibrator(o: CalibratorOptions): Calibrator {
  const calibrations = new Map<number, Promise<Calibration>>()
  return (inputTokens, signal) => {
    let pending = calibrations.get(inputTokens)
    if (!pending) {
      pending = calibrateLength(o, inputTokens, signal)
      pending.catch(() => calibrations.delete(inputTokens))
      calibrations.set(inputTokens, pending)
    }
    return pending
  }
}

async function calibrateLength(o: CalibratorOptions, inputTokens: number, signal?: AbortSignal): Promise<Calibration> {
  const name = await o.modelName()
  const { tokenize } = o
  // A tokenizer that fails only costs the shortcut: the real requests still steer the search.
  const count = tokenize ? (text: string) => tokenize(name, text).catch(() => undefined) : undefined
  // A count from usage is of the last prompt calibrate() built with the filler length it returns.
  const built = new Map<number, string>()
  const prompt = o.tokenizeSettled
    ? (fillerWords: number) => {
        const text = o.prompt(fillerWords)
        built.set(fillerWords, text)
        return text
      }
    : o.prompt
  const calibration = await calibrate(inputTokens, prompt, {
    tokenize: count,
    probe: async (text) => {
      const outcome = await o.probe(text, signal)
      const e = outcome.error
      if (e) throw new RequestError(`prompt calibration (${inputTokens} tokens): ${e.message}`, e.kind, e.status)
      return outcome.tally.promptTokens
    },
  })
  if (!o.tokenizeSettled || !count || calibration.source === 'estimate') return calibration
  // Without usage the tokenizer's count is all there is, and it is the one calibrate() returned.
  if (calibration.source === 'tokenize') return { ...calibration, tokenized: calibration.promptTokens }
  const settled = built.get(calibration.fillerWords)
  const tokenized = settled === undefined ? undefined : await count(settled)
  return tokenized === undefined ? calibration : { ...calibration, tokenized }
}
