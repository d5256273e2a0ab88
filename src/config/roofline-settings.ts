/**
 * `bandwidth` and `model-bytes`: the box's memory bandwidth and the bytes of the model one decode step reads, for
 * the roofline (core/roofline.ts). Each overrides what the run would find itself: the detected GPU's published
 * bandwidth, the model's files or what the engine says of itself (the simulator).
 */
import { z } from 'zod'
import { expected, show } from '../core/fields.js'
import { parseSize, SIZE_FACTORS } from '../core/units.js'

const UNITS = Object.keys(SIZE_FACTORS).join('|')
const SIZE_PATTERN = `^\\d+(?:\\.\\d+)?\\s*(?:${UNITS})$`
const RATE_PATTERN = `^\\d+(?:\\.\\d+)?\\s*(?:${UNITS})/s$`

/** Past these a figure is a typo: a petabyte of weights, a petabyte per second. */
const MAX_BYTES = 1e15

function sized(
  kind: 'size' | 'rate',
  hint: string,
  meta: { description: string; pattern: string; examples: string[] },
) {
  return z
    .string({ error: expected(`must be ${hint}`) })
    .meta(meta)
    .transform((text, ctx) => {
      const trimmed = text.trim()
      const body = kind === 'rate' ? trimmed.replace(/\/s$/, '') : trimmed
      const bytes = kind === 'rate' && body === trimmed ? undefined : parseSize(body)
      if (bytes === undefined || bytes <= 0 || bytes > MAX_BYTES) {
        ctx.addIssue({ code: 'custom', message: `${show(text)} is not ${hint}`, input: text })
        return z.NEVER
      }
      return bytes
    })
}

export function rooflineSettings() {
  return {
    bandwidth: sized('rate', 'a bandwidth like 273GB/s or 3.35TB/s', {
      description:
        "The box's memory bandwidth for the roofline, e.g. 273GB/s (default: the detected GPU's published figure, or the simulator's)",
      pattern: RATE_PATTERN,
      examples: ['273GB/s'],
    }),
    'model-bytes': sized('size', 'a size like 16.4GB or 15GiB', {
      description:
        "Bytes of weights one decode step reads, for the roofline, e.g. 16.4GB (default: read from the model's safetensors or GGUF headers)",
      pattern: SIZE_PATTERN,
      examples: ['16.4GB'],
    }),
  }
}
