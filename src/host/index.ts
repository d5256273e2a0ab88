export { COMMAND_LIMITS, runCommand, type CommandLimits, type CommandResult } from './command.js'
export { fingerprint, type FingerprintInputs } from './fingerprint.js'
export {
  nvidiaSmi,
  parseComputeApps,
  parseCounters,
  parseGpuIds,
  parseGpuStates,
  queryComputeApps,
  queryGpus,
  type Run,
} from './nvidia-smi.js'
export { gpuLayers, resolveGpus, runArgsGpus, scopeGpus, scopeIndexes, scopeText, type GpuLayer } from './gpu-scope.js'
export {
  hostGpuIds,
  markAllowed,
  markOutside,
  oursBy,
  preflightProblem,
  processGroup,
  readGovernors,
  readHost,
  type HostReaders,
  type PreflightOptions,
} from './preflight.js'
export { slowdowns, watchRound } from './throttle.js'
export {
  MAX_SAMPLES,
  SAMPLE_INTERVAL_MS,
  samplerArgs,
  startGpuSampler,
  type GpuSampler,
  type SamplerOptions,
} from './gpu-sampler.js'
export { clockDrop, integrate, parseSample, summarizeGpu, type GpuSample } from './gpu-telemetry.js'
export { BOX_SAMPLE_MS, MAX_PIDS, ownedBy, watchBox, type BoxWatchOptions } from './box-watch.js'
export { BUSY_CORES, SWAP_IN_PAGES, disturbances, type DisturbanceRules } from './disturbance.js'
