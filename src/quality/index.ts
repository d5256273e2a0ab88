/** Output quality checks, pure: probe questions and their scoring, greedy agreement, degenerate output, the quality verdict. */
export {
  probeQuestions,
  solveQuestion,
  PROBE_INSTRUCTION,
  PROBE_DEFAULT_QUESTIONS,
  PROBE_DEFAULT_SEED,
  PROBE_MAX_QUESTIONS,
  PROBE_MAX_TOKENS,
  type ProbeQuestion,
} from './probe.js'
export { finalNumber, scoreProbe, type ProbeMiss, type ProbeScore } from './score.js'
export {
  GREEDY_PROMPTS,
  BENCHMARK_SHAPED_MAX_INPUT,
  BENCHMARK_SHAPED_REQUESTS,
  GREEDY_MAX_PROMPTS,
  benchmarkShapedKey,
  GREEDY_KEEP_CHARS,
  GREEDY_MAX_TOKENS,
  keepGreedy,
  promptAgreement,
  describeDifference,
  greedyAgreement,
  type PromptAgreement,
} from './greedy.js'
export {
  appendSample,
  checkDegenerate,
  tallyDegenerate,
  DEGENERATE_SAMPLE_CHARS,
  type DegenerateCheck,
} from './degenerate.js'
export { qualityVerdict, BLIND_ACCURACY, CUT_HINT, DEGENERATE_MAX_RISE, type QualityVerdict } from './verdict.js'
