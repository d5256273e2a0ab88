/**
 * `engine: sim`: the built-in simulator, launched as `llm-bench-gate sim …` through the same
 * launch/ready/teardown path as a real engine. It speaks vLLM's dialect, so readiness,
 * counters and spec-decode acceptance read like vLLM's.
 */
import { resolve } from 'node:path'
import { z } from 'zod'
import type { TargetPlan } from '../core/plan.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import { duration, expected, positive, relative } from '../core/fields.js'
import { cliEntry } from '../io/cli-entry.js'
import { isProfilePath, loadProfile, SHIPPED_PROFILE_NAMES, SHIPPED_PROFILES } from '../sim/profiles.js'
import { SIM_FAULTS } from '../sim/profile.js'
import { ACCEPTANCE_MODES } from '../sim/acceptance.js'
import { DEFAULT_SLOW_FACTOR, DEFAULT_SLOW_WINDOW_MS, MAX_LAUNCH_CV } from '../sim/speed.js'
import { asRecord, getJson, INFO_TIMEOUT_MS } from './http.js'
import { postReset } from './cache-reset.js'
import { joinUrl } from '../core/url.js'
import { openaiPath, tokenizePrompt } from './openai.js'
import { sumByName, VLLM_COUNTER_NAMES, VLLM_DRAFT_COUNTERS, vllmSpecDecode } from './prometheus.js'
import { countedAcceptance } from './round-acceptance.js'
import { SIM_SERIES } from './server-series.js'
import type { EngineAdapter } from './types.js'
import type { RoundServer } from '../core/server-counters.js'
import type { RoundGpu } from '../core/telemetry.js'
import { SIM_ENERGY_COUNTER, SIM_POWER_GAUGE } from '../sim/metrics-endpoint.js'
import { shellQuote } from '../core/shell.js'
import { readRooflineHint, ROOFLINE_HINT_KEY } from '../core/roofline.js'

/**
 * The check of a profile name is the simulator's own loader, so a bad name fails before launch. A profile file is
 * read when the launch command is built (`simArgs`), from the target's workdir: the base arm of an A/B reads the
 * base commit's copy, which the run's working directory may not have.
 */
function knownProfile(ref: string, ctx: z.core.$RefinementCtx<string>): void {
  if (isProfilePath(ref)) return
  try {
    loadProfile(ref)
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message, input: ref })
  }
}

const SIM_OPTIONS = {
  profile: z
    .string({ error: expected('must be a shipped profile name or a path to a profile .json file') })
    .superRefine(knownProfile)
    .meta({
      description: `Simulator profile: a shipped name (${SHIPPED_PROFILE_NAMES.join(', ')}) or a path to a profile .json file`,
    })
    .optional(),
  'time-scale': positive().meta({ description: 'Simulated seconds per wall-clock second (default 1)' }).optional(),
  seed: z
    .int({ error: expected('must be an integer') })
    .meta({ description: 'Seed of the simulated timing and acceptance draws (default 1)' })
    .optional(),
  'load-time': duration({ allowZero: true })
    .meta({ description: 'How long the simulator loads, refusing connections, before it serves' })
    .optional(),
  fault: z
    .enum([...SIM_FAULTS, 'none'], { error: expected(`must be one of ${[...SIM_FAULTS, 'none'].join(', ')}`) })
    .meta({
      description:
        "Broken output at unchanged speed, no-prefix-cache (prefix caching off) or drafter-drops-prefix-cache (a drafting profile re-prefills every turn), over the profile's own fault (none serves it healthy)",
    })
    .optional(),
  // Launch-to-launch and host speed (the same-box A/B of docs/same-box.md needs launches that differ). No seed option:
  // every launch draws its own, and the box factor is the host's, read by the simulator from its environment.
  'launch-cv': relative({ allowZero: true })
    .refine((f) => f < MAX_LAUNCH_CV, { error: `must be below ${MAX_LAUNCH_CV * 100}%` })
    .meta({
      description:
        'Spread (coefficient of variation) of one speed multiplier drawn per launch, e.g. 3% (default 0: every launch at the profile speed)',
    })
    .optional(),
  'regime-share': relative({ allowZero: true, capPercent: true })
    .meta({
      description: 'Share of launches that settle in a slower regime, e.g. 15% (default 0: one regime; vLLM #39903)',
    })
    .optional(),
  'regime-factor': z
    .number({ error: expected('must be a number in (0, 1]') })
    .positive({ error: expected('must be a number in (0, 1]') })
    .max(1, { error: expected('must be a number in (0, 1]') })
    .meta({ description: 'Speed multiplier of the slower regime (default 0.9)' })
    .optional(),
  acceptance: z
    .enum(ACCEPTANCE_MODES, { error: expected(`must be one of ${ACCEPTANCE_MODES.join(', ')}`) })
    .meta({
      description:
        "Where a drafting profile's acceptance comes from: draws (default) from the launch's random stream, or prompt: each prompt's text, the same in every launch as greedy decoding is",
    })
    .optional(),
  'accept-factor': positive()
    .meta({ description: "The profile's mean acceptance length times this (default 1; 0.9: a drafter 10 % worse)" })
    .optional(),
  'slow-share': relative({ allowZero: true, capPercent: true })
    .meta({ description: 'Share of simulated-time windows that run slow, e.g. 10% (default 0)' })
    .optional(),
  'slow-factor': z
    .number({ error: expected('must be a number in (0, 1]') })
    .positive({ error: expected('must be a number in (0, 1]') })
    .max(1, { error: expected('must be a number in (0, 1]') })
    .meta({ description: `Speed multiplier within a slow window (default ${DEFAULT_SLOW_FACTOR})` })
    .optional(),
  'slow-window': duration()
    .meta({
      description: `Length of the slow/not-slow windows in simulated time (default ${DEFAULT_SLOW_WINDOW_MS / 1000}s)`,
    })
    .optional(),
}

type SimOptions = z.output<z.ZodObject<typeof SIM_OPTIONS>>

/** The CLI flags for options the matrix file has already checked and converted (`load-time` is in ms). */
function simArgs(target: TargetPlan): string[] {
  const o = target.engineOptions as SimOptions
  if (o.profile === undefined) {
    const named = target.id === target.sourceKey ? '' : ` (${target.id})`
    throw new ConfigError([
      `targets.${target.sourceKey}.profile${named}: engine sim needs a profile: a shipped name or a path to a profile .json file`,
    ])
  }
  // A path is made absolute here, so the child finds it whatever its working directory; relative to the target's
  // workdir when it has one (the base commit's worktree for the base arm of an A/B: the base's copy of the profile).
  const dir = target.workdir ?? process.cwd()
  if (isProfilePath(o.profile)) {
    try {
      loadProfile(o.profile, dir)
    } catch (error) {
      const named = target.id === target.sourceKey ? '' : ` (${target.id})`
      throw new ConfigError([`targets.${target.sourceKey}.profile${named}: ${errorMessage(error)}`])
    }
  }
  const args = ['--profile', shellQuote(SHIPPED_PROFILES.has(o.profile) ? o.profile : resolve(dir, o.profile))]
  if (o['time-scale'] !== undefined) args.push('--time-scale', String(o['time-scale']))
  if (o.seed !== undefined) args.push('--seed', String(o.seed))
  if (o['load-time'] !== undefined) args.push('--load-ms', String(Math.round(o['load-time'])))
  if (o.fault !== undefined) args.push('--fault', o.fault)
  if (o['launch-cv'] !== undefined) args.push('--launch-cv', String(o['launch-cv']))
  if (o['regime-share'] !== undefined) args.push('--regime-share', String(o['regime-share']))
  if (o['regime-factor'] !== undefined) args.push('--regime-factor', String(o['regime-factor']))
  if (o.acceptance !== undefined) args.push('--acceptance', o.acceptance)
  if (o['accept-factor'] !== undefined) args.push('--accept-factor', String(o['accept-factor']))
  if (o['slow-share'] !== undefined) args.push('--slow-share', String(o['slow-share']))
  if (o['slow-factor'] !== undefined) args.push('--slow-factor', String(o['slow-factor']))
  if (o['slow-window'] !== undefined) args.push('--slow-window', String(o['slow-window']))
  return args
}

/**
 * The simulated GPU over one round: one device, its power the draw gauge's mean and peak over the round's samples,
 * its energy the energy counter's change over the round (as vLLM's `vllm/benchmarks/lib/energy.py` diffs NVML's
 * total-energy counter). The counter is read just before the first request and just after the last token, so the
 * energy spans the round and the moments around it; nothing else runs then. Undefined for a profile without `power-w`.
 */
export function simRoundGpu(server: RoundServer): RoundGpu | undefined {
  const energyJ = server.deltas[SIM_ENERGY_COUNTER]
  const mean = server.means[SIM_POWER_GAUGE]
  const max = server.peaks[SIM_POWER_GAUGE]
  const devices =
    mean === undefined || max === undefined ? [] : [{ index: 0, samples: server.samples, powerW: { mean, max } }]
  if (energyJ === undefined && !devices.length) return undefined
  return { devices, ...(energyJ !== undefined && { energyJ }) }
}

export const sim: EngineAdapter = {
  name: 'sim',
  needsLaunchOrUrl: false,
  options: SIM_OPTIONS,

  defaultLaunch(target) {
    const args = simArgs(target)
    return [shellQuote(process.execPath), shellQuote(cliEntry()), 'sim', ...args, '--port', '{port}'].join(' ')
  },

  serverSeries: SIM_SERIES,
  roundGpu: simRoundGpu,
  healthPath: '/health',
  // Like vLLM: the port refuses connections while "loading", then /health answers 200.
  readiness: (answer) => (answer.status === 200 ? 'ready' : 'loading'),

  path: openaiPath,
  transformRequest: (body) => body,
  tokenize: tokenizePrompt,

  async info(http, baseUrl) {
    const v = asRecord(await getJson(http, joinUrl(baseUrl, '/version')))
    if (!v) return {}
    const str = (key: string) => (typeof v[key] === 'string' ? { [key]: v[key] as string } : {})
    // The box and model the profile stands for (sim/roofline-hint.ts); core/roofline.ts reads it, numbers only.
    const roofline = readRooflineHint(v)
    return {
      ...str('version'),
      server: { ...str('profile'), ...str('emulates'), ...(roofline && { [ROOFLINE_HINT_KEY]: roofline }) },
    }
  },

  async counters(http, baseUrl) {
    const answer = await http.get(joinUrl(baseUrl, '/metrics'), INFO_TIMEOUT_MS).catch(() => undefined)
    return answer?.status === 200 ? sumByName(answer.body, VLLM_COUNTER_NAMES) : undefined
  },

  // vLLM's dialect, which the simulator speaks whatever engine its profile emulates (sim/cache-control.ts).
  resetPrefixCache: (http, baseUrl) => postReset(http, baseUrl, 'sim', '/reset_prefix_cache'),

  roundAcceptance: (server) => countedAcceptance(server, VLLM_DRAFT_COUNTERS),
  specDecode: (before, after) => vllmSpecDecode(before, after, 'sim /metrics counter deltas'),
}
