/** What one run of another benchmark tool measured, in our metric definitions, before it becomes a round of a cell. */
import type { DistributionMetric, ScalarMetric, Stats } from '../core/measurements.js'
import type { CellResult } from '../core/results.js'

/** The figures a tool reported; a statistic or figure it did not report is absent. */
export type Figures = { [K in DistributionMetric]?: Partial<Stats> } & { [K in ScalarMetric]?: number }

export interface IngestedRun {
  /** `file:line` of the record, for messages. */
  where: string
  file: string
  /** Target and scenario ids: runs with the same pair are rounds of one cell. */
  target: string
  scenario: string
  model: string | null
  workload: CellResult['workload']
  /** Requests sent, and how many failed (null when the tool counts no failures). */
  requests: number
  errors: number | null
  durationMs: number
  figures: Figures
  /** Prompt and output lengths of the successful requests, as far as the tool says. */
  achieved: { promptTokens: { min: number; max: number }; outputTokens: { min: number; max: number } }
  /** What of our definitions the tool's record could not give. */
  unmapped: string[]
  version?: string
}

/** One parsed JSON value of an input file and the line it starts on. */
export interface Document {
  value: unknown
  file: string
  line: number
}

export interface IngestFormat {
  /** The `--format` value. */
  name: string
  /** What a record of this format is, for messages: `a vLLM bench result`. */
  noun: string
  /** The documents of one file → runs. A record that is not one of the format's throws a `ConfigError`. */
  parse(docs: readonly Document[]): IngestedRun[]
}
