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
export { baselinePath, historyPath } from './layout.js'
export { isForeign, parseJson, readHistory, readResults, readResultsFile, resultsFromJson } from './results-file.js'

export interface LoadedBaseline {
  view: BaselineView
  /** Where the baseline came from; undefined when there is none yet. */
  ref?: BaselineRef
}

export interface BaselineStore {
  /** `file`: a read-only `baseline-file`, whose problems are configuration errors. */
  kind: 'branch' | 'file'
  load(hardware: string): Promise<LoadedBaseline>
  /** Write baseline.json and append to history.json (merge by cell id, retry on 409/422). */
  save(hardware: string, results: ResultsFile, gates: Record<string, GateConfig>): Promise<void>
}

export interface BranchStoreOptions {
  request: GitHubRequest
  repo: RepoRef
  branch: string
  log: Logger
  /** Entries kept in history.json (default 30). */
  historyLimit?: number
  /** Retries on 409/422 (default 5). */
  maxRetries?: number
  /** Backoff base in ms (default 500; tests pass small values). */
  backoffMs?: number
}
