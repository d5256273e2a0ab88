/**
 * Where baselines live: a data branch written through the GitHub API (`branchStore`), or a local
 * results file given as `baseline-file` (`fileStore`, read-only). Results and history files,
 * wherever they come from, are read and checked by `readResults`/`readHistory` (results-file.ts).
 * A store persists what it is given: the pages an update writes next to the data come from its caller
 * (`PagesOf`), built from what the update merged.
 */
import type { BaselineView } from '../compare/index.js'
import type { GateConfig } from '../core/plan.js'
import type { GitHubRequest, RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { BaselineRef, HistoryEntry, ResultsFile } from '../core/results.js'

export { branchStore } from './branch-store.js'
export { fileStore } from './file-store.js'
export { StoreError, readFile as readRepoFile } from './github-files.js'
export { historyEntry, mergeHistory, mergeResults } from './merge.js'
export { baselinePath, dashboardPath, historyPath, ROOT_INDEX_PATH } from './layout.js'
export { HISTORY_BYTES, HISTORY_ENTRIES } from './history-bounds.js'
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
  /**
   * Write baseline.json, append to history.json and write the files `pages` builds from what was merged, in one
   * commit (merge by cell id, retry when the branch moved, the pages built again from the new merge).
   */
  save(hardware: string, results: ResultsFile, gates: Record<string, GateConfig>, pages?: PagesOf): Promise<void>
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
  /** Retries when the branch moved meanwhile (default 5). */
  maxRetries?: number
  /** Backoff base in ms (default 500; tests pass small values). */
  backoffMs?: number
  /** Ends a backoff wait early (the operation's deadline, the run's cancel). */
  signal?: AbortSignal
}

/** One hardware key on the data branch, as a list of every key shows it. */
export interface KeySummary {
  hardware: string
  /** When its baseline was last updated (ISO), if known. */
  updated?: string
  sha?: string
  cells?: number
}

/** What one update writes for its key, merged with the branch head, and every key the branch holds. */
export interface MergedUpdate {
  hardware: string
  baseline: ResultsFile
  /** The bounded history as written, oldest first. */
  history: readonly HistoryEntry[]
  /** This key from what the update writes, then every other key with a baseline on the branch. */
  keys: readonly KeySummary[]
}

/** The files an update writes next to its data (path on the branch → text), built from what it merged. */
export type PagesOf = (merged: MergedUpdate) => Record<string, string>
