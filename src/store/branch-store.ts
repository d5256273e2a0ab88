/**
 * The default store: `<hardware>/baseline.json` (a results file) and `<hardware>/history.json` (a bounded history
 * of default-branch runs) on a data branch, created as an orphan when missing, so it shares no history with the
 * code, next to the pages the caller builds from them (the run writes `<hardware>/index.html`, the dashboard, and
 * the root `index.html`). Each update is one commit carrying them all (commit-files.ts): the files are built from
 * the branch head, and when another writer moved the branch meanwhile they are re-read, re-merged, the pages built
 * again, and committed again.
 */
import type { GateConfig } from '../core/plan.js'
import type { BaselineRef, HistoryEntry, ResultsFile } from '../core/results.js'
import { commitFiles, type Snapshot } from './commit-files.js'
import { ensureBranch, listFolders, readFile } from './github-files.js'
import { boundedHistory, HISTORY_BYTES, HISTORY_ENTRIES } from './history-bounds.js'
import type { BaselineStore, BranchStoreOptions, LoadedBaseline, PagesOf } from './index.js'
import { keySummaries } from './key-summaries.js'
import { baselinePath, historyPath, serialize } from './layout.js'
import { historyEntry, mergeHistory, mergeResults, storableCells } from './merge.js'
import { readOwnHistory, readOwnResults } from './own-files.js'
import { checkReadBack } from './results-file.js'

export function branchStore(options: BranchStoreOptions): Required<BaselineStore> {
  const { request, repo, branch, log } = options
  let branchReady = false

  return {
    kind: 'branch',
    async load(hardware: string): Promise<LoadedBaseline> {
      const [base, hist] = [baselinePath(hardware), historyPath(hardware)]
      const [baseFile, histFile] = await Promise.all([
        readFile(request, repo, branch, base),
        readFile(request, repo, branch, hist),
      ])
      // A run that writes the baseline replaces its own key's unreadable files; any other fails closed on them.
      const replace = options.replaceUnreadable ? log : undefined
      const results = baseFile ? readOwnResults(baseFile.text, `${branch}:${base}`, replace) : undefined
      const history = (histFile && readOwnHistory(histFile.text, `${branch}:${hist}`, replace)?.entries) || []
      if (!results && history.length === 0) {
        log.info(`no baseline for ${hardware} on branch ${branch}`)
        return { view: { history: [] } }
      }
      return { view: { results, history }, ref: refOf(hardware, `branch ${branch}`, results, history) }
    },

    async keys(): Promise<string[]> {
      return listFolders(request, repo, branch)
    },

    async save(
      hardware: string,
      results: ResultsFile,
      gates: Record<string, GateConfig>,
      pages?: PagesOf,
    ): Promise<void> {
      const cells = storableCells(results)
      if (cells.length === 0)
        return log.warn(`store: no healthy cells to store for ${hardware}; ${branch} left as it is`)
      if (!branchReady) {
        if (await ensureBranch(request, repo, branch)) log.info(`created orphan branch ${branch} for baselines`)
        branchReady = true
      }
      const incoming: ResultsFile = { ...results, cells }
      const entry = historyEntry(incoming, gates)
      const message = `llm-bench-gate: baseline ${hardware} @ ${results.run.sha.slice(0, 7)}`
      const commit = await commitFiles(
        options,
        (snapshot) => updateFiles(options, snapshot, { hardware, incoming, entry, pages }),
        message,
      )
      log.info(
        `stored baseline, history${pages ? ' and pages' : ''} for ${hardware} (${cells.length} cells) on ${branch}${commit ? ` in ${commit.slice(0, 7)}` : ' (unchanged)'}`,
      )
    },
  }
}

interface Update {
  hardware: string
  incoming: ResultsFile
  entry: HistoryEntry
  pages?: PagesOf
}

/** The files of one update: baseline and history merged with what the snapshot's head holds, and the caller's pages. */
async function updateFiles(
  options: BranchStoreOptions,
  snapshot: Snapshot,
  { hardware, incoming, entry, pages }: Update,
): Promise<Map<string, string>> {
  const { branch, log } = options
  const [base, hist] = [baselinePath(hardware), historyPath(hardware)]
  const [baseWhere, histWhere] = [`${branch}:${base}`, `${branch}:${hist}`]
  const [baseText, histText] = await Promise.all([snapshot.read(base), snapshot.read(hist)])
  // Only a run that writes the baseline gets here: its own key's unreadable files are replaced (own-files.ts).
  const baseline = mergeResults(baseText === undefined ? undefined : readOwnResults(baseText, baseWhere, log), incoming)
  const merged = mergeHistory(
    histText === undefined ? undefined : readOwnHistory(histText, histWhere, log),
    entry,
    hardware,
    options.historyLimit ?? HISTORY_ENTRIES,
  )
  const history = boundedHistory(merged, options.historyBytes ?? HISTORY_BYTES)
  // Never store what cannot be read: both files are read back with the reader's checks before the commit.
  const files = new Map([
    [base, checkReadBack(serialize(baseline), baseWhere, 'results')],
    [hist, checkReadBack(history.text, histWhere, 'history')],
  ])
  if (!pages) return files
  const updated = baseline.run.finishedAt || baseline.run.startedAt
  const current = { hardware, updated, sha: baseline.run.sha, cells: baseline.cells.length }
  const keys = await keySummaries(snapshot, current)
  for (const [path, text] of Object.entries(pages({ hardware, baseline, history: history.file.entries, keys }))) {
    // A page never stands in for the data it is built from, nor leaves the branch's tree.
    if (files.has(path) || !isPagePath(path)) throw new Error(`store: ${branch}:${path} is not a page the store writes`)
    files.set(path, text)
  }
  return files
}

/** A relative path of plain segments ending in `.html`. */
function isPagePath(path: string): boolean {
  return /\.html$/.test(path) && path.split('/').every((segment) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(segment))
}

/** Describes a stored baseline: the baseline file's run, else the newest history entry. */
export function refOf(
  hardware: string,
  source: string,
  results: ResultsFile | undefined,
  history: HistoryEntry[],
): BaselineRef {
  const last = history.at(-1)
  const ref: BaselineRef = { sha: results?.run.sha ?? last?.sha ?? '', hardware, source, samples: history.length }
  const runUrl = results?.run.runUrl || last?.runUrl
  const date = results?.run.startedAt || last?.date
  if (runUrl) ref.runUrl = runUrl
  if (date) ref.date = date
  return ref
}
