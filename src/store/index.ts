// CONTRACT STUB — the store helper replaces the bodies; keep the exported names and shapes.
import type { BaselineView } from '../compare/index.js'
import type { GateConfig } from '../config/plan.js'
import type { GitHubRequest, RepoRef } from '../github-port.js'
import type { Logger } from '../log.js'
import type { BaselineRef, ResultsFile } from '../results.js'

export interface LoadedBaseline {
  view: BaselineView
  /** Where the baseline came from; undefined when there is none yet. */
  ref?: BaselineRef
}

export interface BaselineStore {
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

export function branchStore(_options: BranchStoreOptions): BaselineStore {
  throw new Error('not implemented')
}

/** `baseline-file`: a local results file, read-only. */
export function fileStore(_path: string): BaselineStore {
  throw new Error('not implemented')
}
