/**
 * Reading this run's own hardware key's baseline and history. A run that only compares (a PR) fails closed on a file
 * that does not read (docs/data-branch.md, "How PRs read it": never a silent "new, passes"). A run that writes the
 * baseline replaces such a file instead, saying so at warning level with the file and the reason: were it to fail
 * closed too, one unreadable write would stop every later run, PR and default branch alike, until someone edited the
 * data branch by hand. What still reads is kept: the cells of the baseline and the entries of the history that pass the
 * reader's checks one by one.
 */
import { ConfigError, errorMessage } from '../core/errors.js'
import type { Logger } from '../core/log.js'
import type { HistoryFile, ResultsFile } from '../core/results.js'
import { historyFromJson, readHistory, readResults, resultsFromJson } from './results-file.js'

/** How a reader treats an unreadable own file: throws (undefined), or replaces it, warning through this logger. */
export type Replace = Logger | undefined

const reasonOf = (error: unknown) => (error instanceof ConfigError ? error.problems.join('; ') : errorMessage(error))

/** The items of `list` that read on their own, in the file they came from; undefined when the rest does not read. */
function salvage<T>(text: string, list: 'cells' | 'entries', read: (value: unknown) => T): { file?: T; of: number } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { of: 0 }
  }
  const items = (value as Record<string, unknown> | null)?.[list]
  if (!Array.isArray(items)) return { of: 0 }
  const reads = (item: unknown) => {
    try {
      read({ ...(value as object), [list]: [item] })
      return true
    } catch {
      return false
    }
  }
  try {
    return { file: read({ ...(value as object), [list]: items.filter(reads) }), of: items.length }
  } catch {
    return { of: items.length }
  }
}

function readOwn<T>(
  text: string,
  where: string,
  replace: Replace,
  o: {
    list: 'cells' | 'entries'
    read: (text: string) => T
    fromJson: (value: unknown) => T
    size: (file: T) => number
  },
): T | undefined {
  try {
    return o.read(text)
  } catch (error) {
    if (!replace) throw error
    const { file, of } = salvage(text, o.list, o.fromJson)
    const kept = file ? `keeping the ${o.size(file)} of its ${of} ${o.list} that read` : 'nothing of it reads'
    replace.warn(
      `${where} does not read (${reasonOf(error)}); this run writes the baseline, so it replaces the file, ${kept}`,
    )
    return file
  }
}

export function readOwnResults(text: string, where: string, replace: Replace): ResultsFile | undefined {
  return readOwn(text, where, replace, {
    list: 'cells',
    read: (t) => readResults(t, where),
    fromJson: (v) => resultsFromJson(v, where),
    size: (f) => f.cells.length,
  })
}

export function readOwnHistory(text: string, where: string, replace: Replace): HistoryFile | undefined {
  return readOwn(text, where, replace, {
    list: 'entries',
    read: (t) => readHistory(t, where),
    fromJson: (v) => historyFromJson(v, where),
    size: (f) => f.entries.length,
  })
}
