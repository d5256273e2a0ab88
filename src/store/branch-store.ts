/**
 * The default store: `<hardware>/baseline.json` (a results file) and `<hardware>/history.json` (a
 * bounded history of default-branch runs) on a data branch, created as an orphan when missing, so it
 * shares no history with the code. Writes are optimistic: each file is read with its blob
 * sha, merged with this run and written back with that sha; on 409/422 (someone wrote in between)
 * it is re-read, re-merged and retried with bounded exponential backoff.
 */
import type { GateConfig } from '../core/plan.js'
import { httpStatus } from '../core/github-port.js'
import type { BaselineRef, HistoryEntry, ResultsFile } from '../core/results.js'
import { ensureBranch, readFile, StoreError, wrap, writeFile } from './github-files.js'
import type { BaselineStore, BranchStoreOptions, LoadedBaseline } from './index.js'
import { baselinePath, historyPath, serialize } from './layout.js'
import { historyEntry, mergeHistory, mergeResults, storableCells } from './merge.js'
import { readHistory, readResults } from './results-file.js'

const MAX_DELAY_MS = 30_000
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export function branchStore(options: BranchStoreOptions): BaselineStore {
  const { request, repo, branch, log } = options
  const historyLimit = options.historyLimit ?? 30
  let branchReady = false

  return {
    kind: 'branch',
    async load(hardware: string): Promise<LoadedBaseline> {
      const [base, hist] = [baselinePath(hardware), historyPath(hardware)]
      const [baseFile, histFile] = await Promise.all([readFile(request, repo, branch, base), readFile(request, repo, branch, hist)])
      const results = baseFile && readResults(baseFile.text, `${branch}:${base}`)
      const history = histFile ? readHistory(histFile.text, `${branch}:${hist}`).entries : []
      if (!results && history.length === 0) {
        log.info(`no baseline for ${hardware} on branch ${branch}`)
        return { view: { history: [] } }
      }
      return { view: { results, history }, ref: refOf(hardware, `branch ${branch}`, results, history) }
    },

    async save(hardware: string, results: ResultsFile, gates: Record<string, GateConfig>): Promise<void> {
      const cells = storableCells(results)
      if (cells.length === 0) return log.warn(`store: no healthy cells to store for ${hardware}; ${branch} left as it is`)
      if (!branchReady) {
        if (await ensureBranch(request, repo, branch)) log.info(`created orphan branch ${branch} for baselines`)
        branchReady = true
      }
      const sha7 = results.run.sha.slice(0, 7)
      const [base, hist] = [baselinePath(hardware), historyPath(hardware)]
      const incoming: ResultsFile = { ...results, cells }
      await updateFile(options, base, (text) => serialize(mergeResults(text === undefined ? undefined : readResults(text, `${branch}:${base}`), incoming)), `llm-bench-gate: baseline ${hardware} @ ${sha7}`)
      const entry = historyEntry(incoming, gates)
      await updateFile(options, hist, (text) => serialize(mergeHistory(text === undefined ? undefined : readHistory(text, `${branch}:${hist}`), entry, hardware, historyLimit)), `llm-bench-gate: history ${hardware} @ ${sha7}`)
      log.info(`stored baseline and history for ${hardware} (${cells.length} cells) on ${branch}`)
    },
  }
}

/** Read → build → write with the read sha; re-read and rebuild on a conflict, at most `maxRetries` times. */
async function updateFile(options: BranchStoreOptions, path: string, build: (current: string | undefined) => string, message: string): Promise<void> {
  const { request, repo, branch, log } = options
  const maxRetries = options.maxRetries ?? 5
  const backoffMs = options.backoffMs ?? 500
  for (let attempt = 0; ; attempt++) {
    const current = await readFile(request, repo, branch, path)
    const next = build(current?.text)
    if (next === current?.text) return log.debug(`${branch}:${path}: unchanged`)
    try {
      await writeFile(request, repo, branch, path, next, current?.sha, message)
      return log.debug(`${branch}:${path}: written`)
    } catch (error) {
      const status = httpStatus(error)
      if (status !== 409 && status !== 422) throw wrap(error, `${branch}:${path}: cannot write`)
      if (attempt >= maxRetries) {
        const what = `${branch}:${path}: still conflicting after ${attempt + 1} attempts (HTTP ${status}); another writer keeps changing it`
        throw new StoreError(what, status, { cause: error })
      }
      // Jitter keeps parallel matrix jobs from retrying in lockstep.
      const delay = Math.min(MAX_DELAY_MS, backoffMs * 2 ** attempt) * (1 + Math.random() / 2)
      log.info(`${branch}:${path}: HTTP ${status} (written meanwhile), re-reading and retrying in ${Math.round(delay)} ms`)
      await sleep(delay)
    }
  }
}

/** Describes a stored baseline: the baseline file's run, else the newest history entry. */
export function refOf(hardware: string, source: string, results: ResultsFile | undefined, history: HistoryEntry[]): BaselineRef {
  const last = history.at(-1)
  const ref: BaselineRef = { sha: results?.run.sha ?? last?.sha ?? '', hardware, source, samples: history.length }
  const runUrl = results?.run.runUrl || last?.runUrl
  const date = results?.run.startedAt || last?.date
  if (runUrl) ref.runUrl = runUrl
  if (date) ref.date = date
  return ref
}
