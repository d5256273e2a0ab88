/** Process lifecycle of the engines: launch, readiness, teardown, memory guard. */
export type { ExitInfo, MemInfo, MemoryGuardOptions, RunningTarget, StartOptions, StartupTimes } from './types.js'
export { startTarget, logPathFor } from './start.js'
export { startMemoryGuard, dropCaches, readMemInfo, floorBytes } from './memory.js'
export { DEFAULT_GRACE_MS } from './process-group.js'
export { createRunGuard, type RunGuard } from './guard.js'
export { makeRunId } from './container.js'
export { runCleanup, type CleanupTask, type WorktreeTask } from './cleanup.js'
export { checkGroup, startTimeOf, type GroupIdentity } from './group-identity.js'
export { groupTask } from './launch.js'
export { runGit, gitReason, STALLED_TRANSFER_ENDS, type GitResult } from './git.js'
export {
  addWorktree,
  makeWorktreeFolder,
  removeWorktree,
  WORKTREE_PREFIX,
  WORKTREE_TREE,
  type WorktreeRef,
} from './worktree.js'
export {
  AB_ARM_VARIABLE,
  AB_BASE_SHA_VARIABLE,
  runSetupCommand,
  type SetupCommand,
  type SetupOutcome,
} from './setup-command.js'
