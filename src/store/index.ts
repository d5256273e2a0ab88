/**
 * Where baselines live: a data branch written through the GitHub API (`branchStore`), or a local
 * results file given as `baseline-file` (`fileStore`, read-only). Results and history files,
 * wherever they come from, are read and checked by `readResults`/`readHistory` (results-file.ts).
 */
import type { BaselineView } from '../compare/index.js'
import type { GateConfig } from '../core/plan.js'
import type { GitHubRequest, RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { BaselineRef, ResultsFile } from '../core/results.js'

export { branchStore } from './branch-store.js'
export { fileStore } from './file-store.js'
export { StoreError, readFile as readRepoFile } from './github-files.js'
export { historyEntry, mergeHistory, mergeResults } from './merge.js'
export { baselinePath, dashboardPath, historyPath, ROOT_INDEX_PATH } from './layout.js'
export { HISTORY_BYTES, HISTORY_ENTRIES } from './history-bounds.js'
export { dashboardPage } from './dashboard-files.js'
export {
  checkReadBack,
  isForeign,
  parseJson,
  readBackProblem,
  readHistory,
  readResults,
  readResultsFile,
  resultsFromJson,
} from './results-file.js'

export interface LoadedBaseline {
  view: BaselineView
  /** Where the baseline came from; undefined when there is none yet. */
  ref?: BaselineRef
}

export interface BaselineStore {
  /** `file`: a read-only `baseline-file`, whose problems are configuration errors. */
  kind: 'branch' | 'file'
  load(hardware: string): Promise<LoadedBaseline>
  /** Write baseline.json, append to history.json and refresh the pages, in one commit (merge by cell id, retry when the branch moved). */
  save(hardware: string, results: ResultsFile, gates: Record<string, GateConfig>): Promise<void>
  /** The hardware keys the store holds a folder for (a branch store; a baseline file has one key). */
  keys?(): Promise<string[]>
}

export interface BranchStoreOptions {
  request: GitHubRequest
  repo: RepoRef
  branch: string
  log: Logger
  /** Entries kept in history.json (default HISTORY_ENTRIES, 100). */
  historyLimit?: number
  /** Bytes history.json may take (default HISTORY_BYTES, 2 MiB); the oldest runs go first. */
  historyBytes?: number
  /**
   * The run writes the baseline: `load` replaces this key's unreadable baseline or history with a warning instead of
   * failing (own-files.ts). `save` always does, since only such a run saves.
   */
  replaceUnreadable?: boolean
  /** `https://github.com/o/r`, for commit links on the dashboard. */
  repoUrl?: string
  /** Retries when the branch moved meanwhile (default 5). */
  maxRetries?: number
  /** Backoff base in ms (default 500; tests pass small values). */
  backoffMs?: number
  /** Ends a backoff wait early (the operation's deadline, the run's cancel). */
  signal?: AbortSignal
}
