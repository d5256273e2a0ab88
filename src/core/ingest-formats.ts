/** The result-file formats of other benchmark tools that `ingest` and `engine: external` read (ingest/ maps each). */
export const INGEST_FORMAT_NAMES = ['vllm', 'sglang', 'llama-bench', 'guidellm', 'aiperf'] as const
export type IngestFormatName = (typeof INGEST_FORMAT_NAMES)[number]

/** Placeholders an external target's `run` command gets per round. */
export const EXTERNAL_RUN_PLACEHOLDERS = [
  'out',
  'url',
  'round',
  'input-tokens',
  'output-tokens',
  'concurrency',
  'requests',
  'rate',
] as const
