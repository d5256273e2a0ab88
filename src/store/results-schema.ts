/**
 * zod schemas of `llm-bench-gate/results@1` and `llm-bench-gate/history@1`, mirroring the types in
 * core/results.ts and core/measurements.ts. The keys those types name are checked; any other field is
 * kept as it is, since a results file may grow. Numbers must be finite; null only where the type says
 * so. Messages say what was expected and what came; first-release shapes are upgraded (release-one.ts).
 */
import { z } from 'zod'
import {
  CELL_VERDICTS,
  HISTORY_SCHEMA,
  RESULTS_SCHEMA,
  RUN_VERDICTS,
  type HistoryFile,
  type ResultsFile,
} from '../core/results.js'
import { bisectRecord } from './bisect-schema.js'
import { cellSchema } from './cell-schema.js'
import { dict, keyedBy, list, num, obj, oneOf, str, want } from './results-fields.js'

const run = obj({
  sha: str,
  ref: str,
  event: str,
  runUrl: str,
  startedAt: str,
  finishedAt: str.optional(),
  hardware: str,
  repository: str.optional(),
  config: str.optional(),
  mode: str.optional(),
  shard: str.optional(),
  selection: str.optional(),
  shards: obj({ count: num, missing: list(num) }).optional(),
  tool: obj({ name: z.literal('llm-bench-gate', { error: want('"llm-bench-gate"') }), version: str }),
})

const summary = obj({
  verdict: oneOf(RUN_VERDICTS),
  regressions: num,
  crept: num.optional(),
  counts: z.partialRecord(z.enum(CELL_VERDICTS), num, keyedBy(CELL_VERDICTS, 'cell verdict')),
  baseline: obj({
    sha: str,
    hardware: str,
    source: str,
    runUrl: str.optional(),
    date: str.optional(),
    samples: num.optional(),
  }).optional(),
})

/**
 * A null figure is read into the number field it stands for: every reader of a figure goes through `readMetric`
 * or `formatNumber`, which take anything but a finite number as not measured.
 */
export const resultsSchema = obj({
  schema: z.literal(RESULTS_SCHEMA),
  run,
  cells: list(cellSchema),
  summary: summary.optional(),
  bisect: list(bisectRecord).optional(),
}) as unknown as z.ZodType<ResultsFile>

const historyEntry = obj({
  sha: str,
  date: str,
  runUrl: str,
  cells: dict(dict(obj({ steady: num, rounds: list(num) }))),
  workloads: dict(str).optional(),
  culprits: list(
    obj({
      sha: str,
      cells: list(str),
      kind: oneOf(['culprit', 'step'] as const),
      pull: obj({ number: num, url: str }).optional(),
    }),
  ).optional(),
})

export const historySchema: z.ZodType<HistoryFile> = obj({
  schema: z.literal(HISTORY_SCHEMA),
  hardware: str,
  entries: list(historyEntry),
})
