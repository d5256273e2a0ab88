/**
 * How fast one launch of the simulator runs against its profile. Three multipliers of speed
 * (a step's duration is divided by their product; 1 = the profile's speed exactly):
 *
 * - **Launch offset**: one log-normal draw per launch, mean 1 and coefficient of variation
 *   `launchCv`, from the launch seed. One launch of a real engine can settle into a faster or
 *   slower regime than the next and stay there (vLLM issue #39903), so a same-box A/B needs
 *   several launches per arm.
 * - **Box factor**: the host against the day the baseline was stored (driver, firmware, clocks),
 *   shared by every launch on it; 0.9 = 10 % slower.
 * - **Slow periods**: simulated time is cut into windows of `windowMs`; each window is slow with
 *   probability `share`, decided by the launch seed and the window's index alone (so the answer
 *   does not depend on which windows were asked about before). A step that starts in a slow
 *   window runs at `factor` × speed: a neighbour's job or a thermal dip, not the code.
 *
 * Nothing set, nothing changes: every multiplier is exactly 1 and dividing by 1 is exact in
 * floating point, so schedules stay bit-for-bit what they were.
 */
import { randomBytes } from 'node:crypto'
import { mulberry32 } from '../core/random.js'
import { createRng, jitterFactor } from './rng.js'

/** The host-wide box factor the sim CLI reads at startup (its `--box-factor` overrides it). */
export const BOX_FACTOR_VARIABLE = 'LLM_BENCH_GATE_SIM_BOX_FACTOR'
export const DEFAULT_SLOW_WINDOW_MS = 2000
export const DEFAULT_SLOW_FACTOR = 0.5
/** Launch offsets past this would be a different engine rather than a regime of the same one. */
export const MAX_LAUNCH_CV = 0.5

export interface SlowPeriods {
  /** Probability that a window is slow, in [0, 1]. */
  share: number
  /** Speed multiplier within a slow window, in (0, 1]. */
  factor: number
  /** Window length in simulated ms (> 0). */
  windowMs: number
  /** Seed of the slow/not-slow draws (the launch seed). */
  seed: number
}

/** The speed option of the engine model. */
export interface EngineSpeed {
  /** Speed multiplier of the whole launch (see `launchSpeed`); default 1. */
  multiplier?: number
  slow?: SlowPeriods
}

export interface LaunchSpeedOptions {
  /** Coefficient of variation of the per-launch offset, in [0, 0.5); default 0 (no offset). */
  launchCv?: number
  /** Integer in [0, 2³²); default 0. */
  launchSeed?: number
  /** Host speed multiplier (> 0); default 1. */
  boxFactor?: number
  /**
   * Launch regimes: the share of launches, in [0, 1], that settle in a slower regime (vLLM #39903 reports one
   * launch of the same build serving markedly slower than the next); default 0 (one regime).
   */
  regimeShare?: number
  /** Speed multiplier of the slower regime, in (0, 1]; default DEFAULT_REGIME_FACTOR. */
  regimeFactor?: number
}

/** Speed multiplier of the slower launch regime unless given. */
export const DEFAULT_REGIME_FACTOR = 0.9

// Salts keep the launch draw and the slow windows apart from each other and from the step jitter of the same seed.
const LAUNCH_SALT = 0x1a0c4e5d
const SLOW_SALT = 0x510e51d0

function check(ok: boolean, field: string, rule: string, value: number): void {
  if (!ok) throw new RangeError(`sim speed: ${field} must be ${rule}, got ${value}`)
}

/** A launch seed from node:crypto, so two launches of the same command differ. */
export function randomLaunchSeed(): number {
  return randomBytes(4).readUInt32BE(0)
}

/** The launch's speed multiplier: box factor × one log-normal draw (mean 1, CV `launchCv`) from the launch seed. */
export function launchSpeed(options: LaunchSpeedOptions = {}): number {
  const { launchCv = 0, launchSeed = 0, boxFactor = 1 } = options
  check(launchCv >= 0 && launchCv < MAX_LAUNCH_CV, 'launch-cv', `in [0, ${MAX_LAUNCH_CV})`, launchCv)
  check(Number.isFinite(boxFactor) && boxFactor > 0, 'box factor', 'a number > 0', boxFactor)
  check(
    Number.isInteger(launchSeed) && launchSeed >= 0 && launchSeed < 2 ** 32,
    'launch seed',
    'in [0, 2³²)',
    launchSeed,
  )
  const { regimeShare = 0, regimeFactor = DEFAULT_REGIME_FACTOR } = options
  check(regimeShare >= 0 && regimeShare <= 1, 'regime-share', 'in [0, 1]', regimeShare)
  check(regimeFactor > 0 && regimeFactor <= 1, 'regime-factor', 'in (0, 1]', regimeFactor)
  const rng = createRng(launchSeed ^ LAUNCH_SALT)
  const offset = jitterFactor(rng, launchCv)
  // The regime is drawn after the offset, and only when there are two: a launch without regimes keeps its speed.
  const regime = regimeShare > 0 && rng() < regimeShare ? regimeFactor : 1
  return boxFactor * offset * regime
}

/** Checks a slow-period spec, naming the bad field. */
export function checkSlowPeriods(slow: SlowPeriods): SlowPeriods {
  check(slow.share >= 0 && slow.share <= 1, 'slow-share', 'in [0, 1]', slow.share)
  check(slow.factor > 0 && slow.factor <= 1, 'slow-factor', 'in (0, 1]', slow.factor)
  check(Number.isFinite(slow.windowMs) && slow.windowMs > 0, 'slow-window', 'a number of ms > 0', slow.windowMs)
  return slow
}

/** Whether window `index` (covering [index·windowMs, (index+1)·windowMs)) is slow: a hash of seed and index. */
export function isSlowWindow(slow: SlowPeriods, index: number): boolean {
  // An odd multiplier is a bijection on 32-bit integers, so the windows of one seed get distinct generator states.
  const state = (Math.floor(slow.seed) ^ SLOW_SALT ^ Math.imul(index, 0x9e3779b1)) >>> 0
  return mulberry32(state)() < slow.share
}

/** The speed multiplier of a step starting at `at` (simulated ms). */
export function speedAt(speed: EngineSpeed, at: number): number {
  const base = speed.multiplier ?? 1
  const slow = speed.slow
  if (!slow || slow.share <= 0) return base
  return isSlowWindow(slow, Math.floor(at / slow.windowMs)) ? base * slow.factor : base
}

/** The speed knobs of one launch, as the sim CLI and server take them. */
export interface SpeedOptions extends LaunchSpeedOptions {
  slowShare?: number
  slowFactor?: number
  slowWindowMs?: number
}

/** Whether any knob would move the launch off its profile's speed. */
export function speedIsSet(o: SpeedOptions): boolean {
  return (o.launchCv ?? 0) > 0 || (o.boxFactor ?? 1) !== 1 || (o.slowShare ?? 0) > 0 || (o.regimeShare ?? 0) > 0
}

/** The engine model's speed option for one launch with the given seed. */
export function engineSpeed(o: SpeedOptions & { launchSeed: number }): EngineSpeed {
  const multiplier = launchSpeed(o)
  if ((o.slowShare ?? 0) <= 0) return { multiplier }
  const slow = checkSlowPeriods({
    share: o.slowShare ?? 0,
    factor: o.slowFactor ?? DEFAULT_SLOW_FACTOR,
    windowMs: o.slowWindowMs ?? DEFAULT_SLOW_WINDOW_MS,
    seed: o.launchSeed,
  })
  return { multiplier, slow }
}
