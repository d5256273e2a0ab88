/** Process lifecycle of the engines: launch, readiness, teardown, memory guard. */
export type { ExitInfo, MemInfo, MemoryGuardOptions, RunningTarget, StartOptions } from './types.js'
export { startTarget, logPathFor } from './start.js'
export { startMemoryGuard, dropCaches, readMemInfo, floorBytes } from './memory.js'
export { DEFAULT_GRACE_MS } from './process-group.js'
export { createRunGuard, type RunGuard } from './guard.js'
export { makeRunId } from './container.js'
export { runCleanup, type CleanupTask } from './cleanup.js'
export { checkGroup, type GroupIdentity } from './group-identity.js'
