/**
 * An engine is data plus hooks: adding one is one file and a registry line.
 * The pipeline, the readiness probe and the SSE client only talk to engines through this.
 */
import type { z } from 'zod'
import type { Api, TargetPlan } from '../core/plan.js'
import type { RequestRecord } from '../core/measurements.js'
import type { PrefixCacheReset, SpecDecodeStats, TargetInfo } from '../core/results.js'
import type { RoundServer, ServerSeries } from '../core/server-counters.js'
import type { RoundGpu } from '../core/telemetry.js'

/** One HTTP answer as the readiness probe saw it; `status: 0` means the connection was refused. */
export interface ProbeAnswer {
  status: number
  body: string
}

/** `loading` is every answer but ready: before the first ready answer nothing but the process's exit ends the wait. */
export type Readiness = 'ready' | 'loading'

/** A minimal HTTP getter on loopback, injected so adapters stay testable. */
export type HttpGet = (url: string, timeoutMs: number) => Promise<ProbeAnswer>
export type HttpPost = (url: string, body: unknown, timeoutMs: number) => Promise<ProbeAnswer>

export interface HttpPorts {
  get: HttpGet
  post: HttpPost
}

/** An engine's own matrix-file keys: optional zod fields, each with `.meta({ description })`. */
export type OptionShape = Readonly<Record<string, z.ZodType>>

/** What a request is for, beyond its body: a scenario whose requests share a prefix (`prefix-tokens`). */
export interface RequestOptions {
  sharedPrefix?: boolean
}

/** Server-side counters read before and after a cell (vLLM /metrics, SGLang server info). */
export type Counters = Record<string, number>

/**
 * Reads an engine's own figures from one parsed stream event, under the engine's names.
 * Called, unbound, for every JSON object event of a request that is not an error. What it
 * returns is merged into the request's `extras` key by key, a later event replacing an earlier
 * one's value: engines that repeat a figure repeat its running total.
 */
export type StreamExtrasReader = (event: Record<string, unknown>) => Record<string, number> | undefined

export interface EngineAdapter {
  /** Engine name as written in the matrix file (`vllm`, `sglang`, …). */
  readonly name: string
  /** Whether a target of this engine must give `launch` or `url` (sim fills its own launch). */
  readonly needsLaunchOrUrl: boolean
  /**
   * Target keys this engine accepts beyond the common ones (sim `profile`). The matrix file checks
   * a target's options against its own engine's fields; the parsed values reach the adapter as
   * `TargetPlan.engineOptions`.
   */
  readonly options?: OptionShape

  /**
   * Per option, placeholders left in it for run time (`engine: external`'s `run` keeps `{out}`, `{url}`, …);
   * every other placeholder in an option is filled when the matrix expands.
   */
  readonly runtimePlaceholders?: Readonly<Record<string, readonly string[]>>
  /** Options a target of this engine must give (`engine: external` needs `run` and `format`). */
  readonly requiredOptions?: readonly string[]
  /** The engine runs its own benchmark (`engine: external`): no launch, readiness or bench client; rounds come from its output. */
  readonly measuresItself?: boolean

  /** Launch command when the target gives none (sim only). `{port}` may stay in it. */
  defaultLaunch?(target: TargetPlan): string | undefined

  /** Health endpoint path polled while waiting (`/health`, `/v1/models`). */
  readonly healthPath: string
  /** Classify one probe answer. Connection refused arrives as status 0. */
  readiness(answer: ProbeAnswer): Readiness

  /** Path of the streaming endpoint for an API flavour. */
  path(api: Api): string
  /**
   * Engine-specific request fields on top of the common body (llama.cpp: `cache_prompt: false`); `sharedPrefix`
   * when the scenario's requests share a prefix a cache should serve (`prefix-tokens`).
   */
  transformRequest(body: Record<string, unknown>, api: Api, options?: RequestOptions): Record<string, unknown>

  /**
   * The engine closes the TCP connection after every streamed response although it advertises
   * keep-alive (llama.cpp's llama-server): each streamed request then goes out with
   * `Connection: close` on a connection of its own, so none is sent onto a socket being closed.
   */
  readonly freshConnectionPerRequest?: boolean

  /** Figures the engine puts in its stream events (llama.cpp `timings`), kept per request as `RequestRecord.extras`. */
  readonly streamExtras?: StreamExtrasReader

  /** Count prompt tokens as the server does, when the engine has a tokenizer endpoint. */
  tokenize?(http: HttpPorts, baseUrl: string, model: string | undefined, text: string): Promise<number | undefined>

  /** Engine version and server facts. Never throws: missing facts are left out. */
  info(http: HttpPorts, baseUrl: string): Promise<TargetInfo>

  /**
   * Empties the engine's prefix cache (engines/cache-reset.ts), called before each measurement's cold round so no
   * earlier cell warms it. Bounded in time, never throws: an endpoint the engine does not serve or refuses is a
   * reset not done, with its reason. Absent: the engine offers no reset.
   */
  resetPrefixCache?(http: HttpPorts, baseUrl: string): Promise<PrefixCacheReset>

  /** Server-side counters to diff around a cell, for spec-decode acceptance. */
  counters?(http: HttpPorts, baseUrl: string): Promise<Counters | undefined>

  /** The metrics-endpoint series that explain speed, read around and during every steady round; none: no server counters. */
  readonly serverSeries?: ServerSeries

  /**
   * The round's GPU record from the engine's own series, for an engine that models its own GPU (the simulator, whose
   * draw is its profile's and not the host's GPU's): its power and the energy over the round; undefined where the
   * series say nothing about power. It takes the place of the host's GPU readings for the round (server-watch.ts).
   */
  roundGpu?(server: RoundServer): RoundGpu | undefined

  /**
   * Tokens per verify step over one steady round (engines/round-acceptance.ts), from the round's counter deltas
   * or its requests' stream extras; undefined where the round drafted nothing.
   */
  roundAcceptance?(server: RoundServer | undefined, requests: readonly RequestRecord[]): number | undefined

  /** Spec-decode acceptance for a cell from counter deltas and/or the requests' stream extras. */
  specDecode?(
    before: Counters | undefined,
    after: Counters | undefined,
    requests: RequestRecord[],
  ): SpecDecodeStats | undefined
}
