/**
 * Fields of the request body the measurement depends on: what is sent (model, prompt, messages),
 * how it streams and counts (stream, stream_options, echo), how long it runs (max_tokens,
 * max_completion_tokens, ignore_eos, min_tokens) and that it is greedy and single (temperature, n,
 * best_of). A target's `request-body` may add any other field, never one of these.
 */
export const OWNED_BODY_FIELDS = [
  'model',
  'prompt',
  'messages',
  'stream',
  'stream_options',
  'echo',
  'max_tokens',
  'max_completion_tokens',
  'ignore_eos',
  'min_tokens',
  'temperature',
  'n',
  'best_of',
] as const
