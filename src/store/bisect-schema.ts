/**
 * zod schema of a results file's `bisect[]` (core/bisect.ts), as results-schema.ts checks the rest: the keys the
 * type names are checked, any other field is kept.
 */
import { BISECT_OUTCOMES, PROBE_ROLES, PROBE_SIGNS } from '../core/bisect-record.js'
import { cellVerdict } from './cell-schema.js'
import { dict, list, num, obj, oneOf, str } from './results-fields.js'

const probe = obj({
  role: oneOf(PROBE_ROLES),
  sha: str,
  against: str,
  sign: oneOf(PROBE_SIGNS),
  cells: dict(cellVerdict),
  launches: num,
  engineMs: num,
  reason: str.optional(),
})

export const bisectRecord = obj({
  target: str,
  cells: list(str),
  good: str,
  bad: str,
  commits: list(str),
  outcome: oneOf(BISECT_OUTCOMES),
  culprit: str.optional(),
  steps: list(str).optional(),
  range: obj({ after: str, through: str }).optional(),
  skipped: list(str).optional(),
  reason: str,
  probes: list(probe),
  engineMs: num,
  pull: obj({ number: num, url: str, title: str }).optional(),
})
