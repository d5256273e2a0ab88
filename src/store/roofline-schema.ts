/**
 * zod schema of a cell's `roofline` (core/roofline.ts): the ceiling and share with the figures they came from, or
 * why the cell has none. Files written before the field lack it.
 */
import { z } from 'zod'
import { num, obj, str } from './results-fields.js'

const figures = obj({
  ceilingTps: num,
  share: num,
  decodeTps: num,
  bandwidth: obj({ bytesPerS: num, source: str, measured: obj({ bytesPerS: num, source: str }).optional() }),
  step: obj({ bytes: num, weights: num, kv: num, kvPerToken: num.optional(), source: str }),
  depth: num,
  concurrency: num,
  acceptanceLength: num.optional(),
})

const unavailable = obj({ unavailable: str })

/** The figures, or `{ unavailable }` when the object says so: each checked on its own, so an error names its field. */
export const rooflineSchema = z.unknown().transform((value, ctx) => {
  const isReason = typeof value === 'object' && value !== null && 'unavailable' in value
  const parsed = isReason ? unavailable.safeParse(value) : figures.safeParse(value)
  if (parsed.success) return parsed.data as z.output<typeof figures> | z.output<typeof unavailable>
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path })
  return z.NEVER
})
