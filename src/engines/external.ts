/**
 * `engine: external`: another benchmark tool measures the target. Per round the target's `run` command (a shell
 * command, with `{out}` a fresh file in the results directory and `{url}` the target's URL) writes a result file
 * in `format`; its figures become the round (ingest/). Nothing is launched or polled; the cell is judged like any
 * other.
 */
import { z } from 'zod'
import { expected } from '../core/fields.js'
import { EXTERNAL_RUN_PLACEHOLDERS, INGEST_FORMAT_NAMES } from '../core/ingest-formats.js'
import { openaiPath } from './openai.js'
import type { EngineAdapter } from './types.js'

export const external: EngineAdapter = {
  name: 'external',
  needsLaunchOrUrl: false,
  measuresItself: true,
  options: {
    run: z
      .string({ error: expected('must be a shell command') })
      .min(1, { error: 'must not be empty' })
      .meta({
        description: `engine external: the benchmark command run per round; it writes its result to {out} (also: ${EXTERNAL_RUN_PLACEHOLDERS.filter(
          (p) => p !== 'out',
        )
          .map((p) => `{${p}}`)
          .join(', ')})`,
      })
      .optional(),
    format: z
      .enum(INGEST_FORMAT_NAMES, { error: expected(`must be one of ${INGEST_FORMAT_NAMES.join(', ')}`) })
      .meta({ description: 'engine external: the format of the result file run writes' })
      .optional(),
  },
  requiredOptions: ['run', 'format'],
  runtimePlaceholders: { run: EXTERNAL_RUN_PLACEHOLDERS },
  healthPath: '/',
  readiness: () => 'ready',
  path: openaiPath,
  transformRequest: (body) => body,
  info: async () => ({}),
}
