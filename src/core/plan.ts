/**
 * The validated, expanded plan: what the rest of the pipeline consumes.
 * Produced by `config/expand.ts` from the matrix file (`config/schema.ts`).
 * Nothing downstream re-reads the matrix file or the action inputs.
 */
import type { CeilingMetric, DropMetric, GateStat, RelativeMetric } from './metrics.js'
import type { QualityGate } from './quality.js'

export type Api = 'completions' | 'chat'

/** `prompts:` — a word list calibrated to length (the default), or an instruction and a passage of prose, code or math. */
export const PROMPT_KINDS = ['synthetic', 'text', 'code', 'math'] as const
export type PromptKind = (typeof PROMPT_KINDS)[number]
/** The kinds generated as an instruction and a passage (bench/prompts/text-prompt.ts); `synthetic` is the word list. */
export type GeneratedPrompts = Exclude<PromptKind, 'synthetic'>
export const isGenerated = (kind: PromptKind | undefined): kind is GeneratedPrompts =>
  kind !== undefined && kind !== 'synthetic'

export interface GateMetricConfig {
  /** Relative worsening that may count as a regression, as a fraction (5% → 0.05). */
  maxRegression: number
  /** Absolute worsening below which nothing is a regression, in the metric's unit (ms or tok/s). */
  minDelta?: number
  /** Which per-request statistic is compared (ignored for scalar round metrics). */
  stat: GateStat
}

/** A `ceiling` metric's limit (`failed-requests: { max: 1% }`): the share the cell must stay under. */
export interface CeilingGateConfig {
  max: number
}

/** A `drop` metric's limit (`goodput: { max-drop: 5 }`): how far below the baseline the share may fall, as a fraction (5 points → 0.05). */
export interface DropGateConfig {
  maxDrop: number
}

/** Per gated metric of the registry, its limit; a metric without an entry is not gated. `quality` is the output quality gate. */
export type GateConfig = { [M in RelativeMetric]?: GateMetricConfig } & { [M in CeilingMetric]?: CeilingGateConfig } & {
  [M in DropMetric]?: DropGateConfig
} & {
  quality?: QualityGate
}

/** The output quality probe of a target (`quality:`), run once after readiness and before measuring. */
export interface QualityProbeSettings {
  questions: number
  /** Greedy prompts sent, the first this many of the fixed set. */
  prompts: number
  /** max_tokens of each question. */
  maxTokens: number
  /** Absent: the target's own `api`. */
  api?: Api
  concurrency: number
}

/** `memory-floor`: an absolute amount or a share of total memory. */
export type MemoryFloor = { kind: 'bytes'; value: number } | { kind: 'percent'; value: number }

export interface TargetSettings {
  rounds: number
  discard: number
  readyTimeoutMs: number
  requestTimeoutMs: number
  api: Api
  confirm: number
  /** Relaunch the engine for each confirmation re-measurement (`confirm-fresh`). */
  confirmFresh: boolean
  /** Most rounds a cell may measure, adaptive ones included (`max-rounds`; default `rounds`). */
  maxRounds: number
  /** Launch-to-launch spread assumed while the history is short, as a fraction (`noise-floor`). */
  noiseFloor: number
  /** Default-branch runs a creep is looked for over (`creep-window`; compare/creep.ts). */
  creepWindow: number
  /** Bisection to the culprit commit (`bisect`, `bisect-budget`; docs/bisect.md). */
  bisect: BisectSettings
  memoryFloor: MemoryFloor
  dropCaches: boolean
  /** A round whose failed-request share exceeds this makes the cell inconclusive (fraction). */
  maxErrorShare: number
  /** Secret-looking variables of the runner passed to the engine on purpose (`pass-env`). */
  passEnv: string[]
  /** Extra fields of every request body (`request-body`); none of core/body-fields.ts's. */
  requestBody: Record<string, unknown>
  /** GPU processes (names or globs) expected on the host: recorded by preflight, not refused (`allow-gpu-processes`). */
  allowGpuProcesses: string[]
  /** false: no probe for this target. */
  quality: QualityProbeSettings | false
  /** Same-box A/B against the PR's base commit (`ab`, `ab-launches`, `ab-max-launches`, `ab-budget`; docs/same-box.md). */
  ab: AbSettings
  /** The box's memory bandwidth in bytes/s for the roofline (`bandwidth`); absent: the detected GPU's or the engine's. */
  bandwidth?: number
  /** Bytes of weights one decode step reads (`model-bytes`); absent: read from the model's files or the engine. */
  modelBytes?: number
}

export type AbMode = 'off' | 'confirm' | 'always'

export interface BisectSettings {
  /** `auto`: a default-branch run that alerts bisects in the same job. */
  mode: 'off' | 'auto'
  /** Most engine time one bisection may take, ms (`bisect-budget`). */
  budgetMs: number
}

/** Launches per arm an A/B runs at most unless `ab-max-launches` says otherwise: three ABBA blocks. */
export const DEFAULT_AB_MAX_LAUNCHES = 6

export interface AbSettings {
  mode: AbMode
  /** Launches per arm at least, alternated base, PR, PR, base (ABBA). */
  launches: number
  /** Launches per arm at most: past `launches`, one ABBA block at a time while the sequential test is undecided. */
  maxLaunches: number
  /** Most engine time the run's base arms may take, in ms. */
  budgetMs: number
  /** Shell command run in the base commit's worktree before its first base launch (`ab-setup`); absent: none. */
  setup?: string
}

export interface ScenarioPlan {
  id: string
  inputTokens: number
  outputTokens: number
  concurrency: number
  /** Requests per round (default = concurrency). */
  requests: number
  /** Open-loop arrival rate in requests/s (Poisson); closed-loop concurrency when absent. */
  rate?: number
  /** Tokens every request of a round shares at its start (`prefix-tokens`), part of `inputTokens`. */
  prefixTokens?: number
  /** A point of a concurrency sweep: the scenario as the file names it (`chat-1k` for the point `chat-1k@c4`). */
  sweep?: string
  /** Latency targets (`slo`): a request meeting every bound counts toward goodput. */
  slo?: SloBounds
  /** `prompts: text`; absent: synthetic (bench/prompts/prompt.ts). */
  prompts?: GeneratedPrompts
  /**
   * `turns`: each of the round's `requests` is a conversation of this many chat requests sent one after another,
   * each appending the previous answer and a new user message (bench/rounds/conversation.ts); absent: one request.
   */
  turns?: number
  /** `turn-tokens`: tokens of each new user message after the first turn; set exactly when `turns` is. */
  turnTokens?: number
  /** `thinking: on | off`: the chat template's `enable_thinking` (`chat_template_kwargs`); absent: not sent. */
  thinking?: boolean
}

/** `slo:` — per-request latency bounds in ms; at least one is set. A request is good when it meets every one given. */
export interface SloBounds {
  ttftMs?: number
  tpotMs?: number
  e2eMs?: number
}

/** `container:` — the action composes `<runtime> run` itself; placeholders are filled but `{port}`. */
export interface ContainerPlan {
  image: string
  /** A string is split by the shell like a launch command; a list is passed word for word. */
  command?: string | string[]
  runArgs?: string | string[]
  /** `host:container[:ro]` */
  volumes: string[]
  env: Record<string, string>
  gpus: 'all' | 'none'
  shmSize?: string
  /** Absent: docker when a docker daemon answers, else podman. */
  runtime?: 'docker' | 'podman'
}

export interface TargetPlan {
  /** Target id after matrix expansion, e.g. `qwen38-27b-fp8-vllm`. */
  id: string
  /** Key in the matrix file before expansion (for error messages). */
  sourceKey: string
  engine: string
  quant?: string
  model?: string
  /** Launch command with every placeholder but `{port}` filled; absent for `url:` targets. */
  launch?: string
  /** The container the action runs instead of a launch command (`launch` and `container` exclude each other). */
  container?: ContainerPlan
  /** Shell command run after teardown and again by the post step, for what lives outside the process group; `{port}` may remain. */
  stop?: string
  /** Base URL; may still contain `{port}`. Defaults to `http://127.0.0.1:{port}`. */
  url: string
  /** Fixed port if the config sets one; otherwise the launcher picks a free one. */
  port?: number
  /** True when the target points at a server that is already running (`url:` given, no `launch`). */
  external: boolean
  env: Record<string, string>
  /** Matrix values of this expansion (`{ quant: 'fp8' }`). */
  matrix: Record<string, string>
  /** The target's engine-specific keys (sim `profile`, `load-time`), parsed by its engine's option fields (`load-time` in ms). */
  engineOptions: Record<string, unknown>
  settings: TargetSettings
  gate: GateConfig
  scenarios: ScenarioPlan[]
  /** Globs of repository files the target depends on (`paths`); absent: the target always runs under `select: changed`. */
  paths?: string[]
  /**
   * The directory the launch command runs in, so that its relative paths name that checkout's files: the base
   * commit's worktree for the base arm of a same-box A/B. Absent: the run's working directory.
   */
  workdir?: string
}

export interface CellPlan {
  /** `<target>/<scenario>` */
  id: string
  target: TargetPlan
  scenario: ScenarioPlan
}

export interface Plan {
  /** Path as given (used in the comment marker). */
  configPath: string
  /** Absolute path of the matrix file. */
  resolvedPath: string
  hardware?: string
  /** Targets in file order, each with only the scenarios that survived `only`/`shard`. */
  targets: TargetPlan[]
  cells: CellPlan[]
}
