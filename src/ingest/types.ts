/** What one run of another benchmark tool measured, in our metric definitions, before it becomes a round of a cell. */
import type { DistributionMetric, RoundResult, ScalarMetric, Stats } from '../core/measurements.js'
import type { CellResult } from '../core/results.js'

/** The figures a tool reported; a statistic or figure it did not report is absent. */
export type Figures = { [K in DistributionMetric]?: Partial<Stats> } & { [K in ScalarMetric]?: number }

/**
 * What the run was asked for, as far as the tool's file records it (each format cites the keys it reads). A length
 * the file does not record is absent: `ingest` then takes it from `--input-tokens`/`--output-tokens`, or refuses.
 */
export interface Requested {
  inputTokens?: number
  outputTokens?: number
  /** Null when the request bounds none: the workload then records the measured mean in flight (`means.concurrency`). */
  concurrency: number | null
  requests: number
  rate: number | null
  /**
   * A length asked for as a spread rather than one value (`random_range_ratio 0.5`, `prompt_tokens_stdev 64`):
   * what was achieved is not held against it.
   */
  spread?: { input?: string; output?: string }
  /** What tells apart runs of the same lengths, concurrency and rate: GuideLLM's strategy, SGLang's range ratio. */
  variant?: string
  /** The tool's own name for the workload, which is then the scenario id (llama-bench's `pp512`, `tg128`). */
  name?: string
}

/** One run as a tool's file records it: what was asked, what was measured. */
export interface ToolRun {
  /** `file:line` of the record, for messages. */
  where: string
  file: string
  target: string
  model: string | null
  requested: Requested
  /** Requests sent, and how many failed (null when the tool counts no failures). */
  requests: number
  errors: number | null
  durationMs: number
  figures: Figures
  /** Prompt and output lengths of the successful requests, as far as the tool says. */
  achieved: RoundResult['achieved']
  /** Mean prompt and output tokens per successful request, and the mean requests in flight where the tool says. */
  means: { promptTokens: number; outputTokens: number; concurrency?: number }
  /** What of our definitions the tool's record could not give. */
  unmapped: string[]
  version?: string
}

/** A run placed in a cell: its scenario and the workload it was asked for. */
export interface IngestedRun extends ToolRun {
  /** Runs with the same target and scenario are rounds of one cell. */
  scenario: string
  workload: CellResult['workload']
  /** The lengths the achieved ones are checked against; a length left out is not checked. */
  check: { inputTokens?: number; outputTokens?: number }
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
  /**
   * How a user records the requested lengths in this tool's files, for the message that refuses a file lacking
   * them (`save them with --metadata random_input_len=N random_output_len=N`). Absent when every record names its
   * whole request (llama-bench's tests): the format then takes no request options.
   */
  lengthsHint?: string
  /** The documents of one file → runs. A record that is not one of the format's throws a `ConfigError`. */
  parse(docs: readonly Document[]): ToolRun[]
}
