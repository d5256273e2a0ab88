/** `llm-bench-gate sim …`: the simulator as a process, the way the sim engine adapter launches it. */
import { ACCEPTANCE_MODES, type AcceptanceMode } from './acceptance.js'
import { SIM_FAULTS, type SimFault } from './profile.js'
import { startSimServer, type SimServerOptions } from './server.js'
import { SHIPPED_PROFILE_NAMES } from './profiles.js'
import {
  BOX_FACTOR_VARIABLE,
  DEFAULT_REGIME_FACTOR,
  DEFAULT_SLOW_FACTOR,
  DEFAULT_SLOW_WINDOW_MS,
  MAX_LAUNCH_CV,
  speedIsSet,
  type EngineSpeed,
  type SpeedOptions,
} from './speed.js'

const FAULTS: readonly (SimFault | 'none')[] = [...SIM_FAULTS, 'none']

export const SIM_USAGE = `usage: llm-bench-gate sim --profile NAME|PATH --port N [--host 127.0.0.1] [--time-scale X] [--seed S] [--load-ms MS] [--fault ${FAULTS.join('|')}]
         [--launch-cv X] [--launch-seed N] [--box-factor X] [--regime-share P] [--regime-factor F]
         [--slow-share P] [--slow-factor F] [--slow-window MS] [--acceptance draws|prompt] [--accept-factor G]
  profiles: ${SHIPPED_PROFILE_NAMES.join(', ')}
  --fault: broken output at unchanged speed, no-prefix-cache: prefix caching off, or drafter-drops-prefix-cache: a
    drafting profile drops a request's cached blocks when it ends (overrides the profile's fault; none serves it healthy)
  --launch-cv: spread of one speed multiplier drawn per launch (fraction in [0, ${MAX_LAUNCH_CV}), default 0: none)
  --launch-seed: seed of that draw and of the slow windows (0 to 2^32-1; default a fresh random one per launch)
  --box-factor: speed multiplier of this host (0.9 = 10 % slower); default $${BOX_FACTOR_VARIABLE}, else 1
  --regime-share: share of launches (fraction in [0, 1], default 0) that settle in a slower regime, running at
    --regime-factor × speed (in (0, 1], default ${DEFAULT_REGIME_FACTOR}), drawn from the launch seed
  --slow-share: share of slow windows (fraction in [0, 1], default 0), each running at --slow-factor × speed
    (in (0, 1], default ${DEFAULT_SLOW_FACTOR}); windows of --slow-window simulated ms (default ${DEFAULT_SLOW_WINDOW_MS})
  --acceptance: where a drafting profile's acceptance comes from: draws (default) from the launch's random stream;
    prompt: from each prompt's text, the same in every launch as greedy decoding is, by stratum (code, math, prose)
  --accept-factor: the profile's mean acceptance length × G (G > 0, default 1; 0.9: a drafter 10 % worse)`

class UsageError extends Error {}

const FLAGS = [
  'profile',
  'port',
  'host',
  'time-scale',
  'seed',
  'load-ms',
  'fault',
  'launch-cv',
  'launch-seed',
  'box-factor',
  'regime-share',
  'regime-factor',
  'slow-share',
  'slow-factor',
  'slow-window',
  'acceptance',
  'accept-factor',
] as const
type Flag = (typeof FLAGS)[number]

/** `name` is the flag (`--seed`) or the environment variable the value came from. */
function number(name: string, raw: string, check: (n: number) => boolean, what: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`${name}: expected ${what}, got "${raw}"`)
  return n
}

type Opt = (flag: Flag, check: (n: number) => boolean, what: string) => number | undefined

/** The speed knobs; `--box-factor` wins over the environment variable, which an empty value leaves unset. */
function speedArgs(opt: Opt, env: NodeJS.ProcessEnv): SpeedOptions {
  const fromEnv = env[BOX_FACTOR_VARIABLE]
  const positive = (n: number) => n > 0
  return {
    launchCv: opt('launch-cv', (n) => n >= 0 && n < MAX_LAUNCH_CV, `a fraction in [0, ${MAX_LAUNCH_CV})`),
    launchSeed: opt('launch-seed', (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32, 'an integer 0 to 2^32-1'),
    boxFactor:
      opt('box-factor', positive, 'a number > 0') ??
      (fromEnv ? number(BOX_FACTOR_VARIABLE, fromEnv, positive, 'a number > 0 (a speed multiplier)') : undefined),
    regimeShare: opt('regime-share', (n) => n >= 0 && n <= 1, 'a fraction in [0, 1]'),
    regimeFactor: opt('regime-factor', (n) => n > 0 && n <= 1, 'a number in (0, 1]'),
    slowShare: opt('slow-share', (n) => n >= 0 && n <= 1, 'a fraction in [0, 1]'),
    slowFactor: opt('slow-factor', (n) => n > 0 && n <= 1, 'a number in (0, 1]'),
    slowWindowMs: opt('slow-window', positive, 'milliseconds > 0'),
  }
}

function acceptanceMode(raw: string | undefined): AcceptanceMode | undefined {
  if (raw === undefined || (ACCEPTANCE_MODES as readonly string[]).includes(raw)) return raw as AcceptanceMode
  throw new UsageError(`--acceptance: expected one of ${ACCEPTANCE_MODES.join(', ')}, got "${raw}"`)
}

function fault(raw: string | undefined): SimFault | 'none' | undefined {
  if (raw === undefined || (FAULTS as readonly string[]).includes(raw)) return raw as SimFault | 'none' | undefined
  throw new UsageError(`--fault: expected one of ${FAULTS.join(', ')}, got "${raw}"`)
}

/** Parses the flags; the box factor's environment variable is read from `env`. */
export function parseSimArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): SimServerOptions {
  const args = argv[0] === 'sim' ? argv.slice(1) : argv.slice()
  const values = new Map<Flag, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [undefined, undefined]
    if (!name || !(FLAGS as readonly string[]).includes(name)) throw new UsageError(`unknown argument "${arg}"`)
    const value = inline ?? args[++i]
    if (value === undefined) throw new UsageError(`--${name} needs a value`)
    values.set(name as Flag, value)
  }
  const profile = values.get('profile')
  if (!profile) throw new UsageError('--profile is required')
  const port = values.get('port')
  if (port === undefined) throw new UsageError('--port is required')
  const opt: Opt = (flag, check, what) => {
    const raw = values.get(flag)
    return raw === undefined ? undefined : number(`--${flag}`, raw, check, what)
  }
  return {
    profile,
    port: number('--port', port, (n) => Number.isInteger(n) && n >= 0 && n < 65536, 'a port number'),
    host: values.get('host') ?? '127.0.0.1',
    timeScale: opt('time-scale', (n) => n > 0, 'a number > 0'),
    seed: opt('seed', Number.isInteger, 'an integer'),
    loadMs: opt('load-ms', (n) => n >= 0, 'milliseconds >= 0'),
    fault: fault(values.get('fault')),
    acceptance: acceptanceMode(values.get('acceptance')),
    acceptFactor: opt('accept-factor', (n) => n > 0, 'a number > 0'),
    ...speedArgs(opt, env),
  }
}

/** The stderr line of a launch off its profile's speed: the seed to repeat it and what was drawn. */
function speedLine(o: SpeedOptions, launchSeed: number, speed: EngineSpeed): string {
  const pct = (f: number) => `${+(f * 100).toFixed(3)}%`
  const parts = [`launch-cv ${pct(o.launchCv ?? 0)}`, `box factor ${o.boxFactor ?? 1}`]
  if ((o.regimeShare ?? 0) > 0)
    parts.push(`${pct(o.regimeShare!)} of launches at ×${o.regimeFactor ?? DEFAULT_REGIME_FACTOR}`)
  if (speed.slow) {
    const s = speed.slow
    parts.push(`slow windows ${pct(s.share)} of ${s.windowMs} ms at ×${s.factor}`)
  }
  return `sim: launch seed ${launchSeed}, speed ×${+(speed.multiplier ?? 1).toFixed(6)} (${parts.join(', ')})\n`
}

/** Runs the simulator until SIGTERM/SIGINT; resolves with the exit code. */
export async function simMain(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(SIM_USAGE + '\n')
    return 0
  }
  let options: SimServerOptions
  try {
    options = parseSimArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`sim: ${error.message}\n${SIM_USAGE}\n`)
    return 2
  }

  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  try {
    if (options.loadMs) process.stderr.write(`sim: loading ${options.profile} for ${options.loadMs} ms\n`)
    const server = await startSimServer({ ...options, signal: stop.signal })
    const p = server.profile
    if (speedIsSet(options)) process.stderr.write(speedLine(options, server.launchSeed, server.speed))
    process.stdout.write(
      `sim: ${p.name} (${p.model}, as ${p.emulates}) listening on http://${options.host}:${server.port} (time scale ${options.timeScale ?? 1}, seed ${options.seed ?? 1}${p.fault ? `, fault ${p.fault}` : ''})\n`,
    )
    if (!stop.signal.aborted)
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }))
    await server.close()
    return 0
  } catch (error) {
    if (stop.signal.aborted) return 0
    process.stderr.write(`sim: ${(error as Error).message}\n`)
    return 1
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
  }
}
