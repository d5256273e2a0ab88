/**
 * Draft acceptance as a function of the prompt (`--acceptance prompt`). At temperature 0 a drafter proposes, and
 * the target model accepts, the same tokens for the same prompt at the same position: greedy decoding makes
 * acceptance a property of the text, repeatable from launch to launch (measured on llama-server with a draft model:
 * the same prompts gave the same acceptance in three runs). So in this mode each request draws its accepted drafts,
 * step by step, from a random stream seeded by its prompt alone (reply.ts's `promptSeed`, mixed apart from the
 * reply's words), whatever else runs beside it; the request-to-request spread (`accept-cv`) is drawn from the same
 * stream. The default mode, `draws`, keeps every shipped schedule as it was: acceptance from the launch's stream.
 *
 * A drafter accepts more of text that is predictable from its context: code (repeated identifiers, fixed syntax) and
 * worked arithmetic more than prose (EAGLE's evaluations report longer acceptance on HumanEval and GSM8K than on
 * MT-Bench: https://arxiv.org/abs/2401.15077, https://arxiv.org/abs/2503.01840). The simulator scales a request's
 * accepted drafts by its prompt's stratum (STRATUM_SCALE), read from the text: fenced or symbol-dense text is code,
 * digit- and operator-dense text is math, the rest prose.
 *
 * `--accept-factor G` scales the profile's mean acceptance length by G (0.9: a drafter 10 % worse), through the
 * accepted drafts: with mean length L̄, drafts scale by (G·L̄ − 1) / (L̄ − 1), so the length is G·L̄ before the
 * cap of k drafts per step.
 */
import type { Speculative } from './profile.js'
import { promptSeed } from './reply.js'

export const ACCEPTANCE_MODES = ['draws', 'prompt'] as const
export type AcceptanceMode = (typeof ACCEPTANCE_MODES)[number]

export type Stratum = 'prose' | 'code' | 'math'

/** Accepted drafts relative to prose, by stratum: the simulator's choice, in the direction the papers report. */
export const STRATUM_SCALE: Readonly<Record<Stratum, number>> = { prose: 1, code: 1.5, math: 1.35 }

/** Characters of code syntax, and of arithmetic, whose density marks a prompt's stratum. */
const CODE_CHARS = /[{}()[\];=<>_]/g
const MATH_CHARS = /[0-9+\-×÷*/=^%]/g
const CODE_SHARE = 0.04
const MATH_SHARE = 0.08

/** A prompt's stratum from its text (the first 4,096 characters). */
export function stratumOf(text: string): Stratum {
  const head = text.slice(0, 4096)
  if (!head.length) return 'prose'
  if (head.includes('```') || (head.match(CODE_CHARS)?.length ?? 0) / head.length > CODE_SHARE) return 'code'
  if ((head.match(MATH_CHARS)?.length ?? 0) / head.length > MATH_SHARE) return 'math'
  return 'prose'
}

/** The profile's mean acceptance length: 1 + the weighted mean of accepted drafts. */
export function meanLength(s: Speculative): number {
  const total = s.accept.reduce((a, b) => a + b, 0)
  return 1 + s.accept.reduce((sum, w, i) => sum + i * w, 0) / total
}

/** The scale of accepted drafts that makes the mean length `factor` × the profile's. */
export function draftScale(s: Speculative, factor: number): number {
  if (factor === 1) return 1
  const length = meanLength(s)
  if (!(length > 1)) return 1
  const scale = (factor * length - 1) / (length - 1)
  if (!(scale >= 0))
    throw new RangeError(
      `accept-factor: ${factor} asks for a mean length below 1 (the profile's is ${length.toFixed(3)})`,
    )
  return scale
}

/** What one request's acceptance is drawn from in `prompt` mode: a seed of its own and its scale. */
export interface RequestAcceptance {
  seed: number
  scale: number
}

const ACCEPT_SALT = 0x0acce97

/** A request's own acceptance: seeded by its prompt, scaled by its stratum and the launch's factor. */
export function requestAcceptance(text: string, factorScale: number): RequestAcceptance {
  return { seed: (promptSeed(text) ^ ACCEPT_SALT) >>> 0, scale: STRATUM_SCALE[stratumOf(text)] * factorScale }
}
