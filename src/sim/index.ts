/** The built-in simulator (`engine: sim`): an OpenAI-compatible server speaking vLLM's dialect on a profile's schedule. */
export { startSimServer, SIM_VERSION, type SimServer, type SimServerOptions } from './server.js'
export { simMain, parseSimArgs, SIM_USAGE } from './command-line.js'
export { loadProfile, SHIPPED_PROFILES, SHIPPED_PROFILE_NAMES } from './profiles.js'
export { parseProfile, SIM_FAULTS, type Profile, type ProfileJson, type Reproduces, type SimFault } from './profile.js'
export { EngineModel, type EngineRequest, type Emission, type StepResult } from './engine.js'
export {
  simulate,
  runRounds,
  roundFigures,
  type Arrival,
  type Observed,
  type RoundFigures,
  type Workload,
} from './virtual-run.js'
export {
  launchSpeed,
  engineSpeed,
  speedAt,
  isSlowWindow,
  randomLaunchSeed,
  BOX_FACTOR_VARIABLE,
  type EngineSpeed,
  type SlowPeriods,
  type LaunchSpeedOptions,
  type SpeedOptions,
} from './speed.js'
export { CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_REPLY } from './tokenizer.js'
