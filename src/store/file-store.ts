/** `baseline-file`: a local results file stands in for the store, read-only. */
import { ConfigError, errorMessage } from '../core/errors.js'
import { readRegularFile } from '../io/safe-fs.js'
import type { BaselineStore, LoadedBaseline } from './index.js'
import { historyEntry, storableCells } from './merge.js'
import { refOf } from './branch-store.js'
import { readResults } from './results-file.js'

/** `shown`: how reports name the file (relative to the workspace); `path` by default. */
export function fileStore(path: string, shown = path): BaselineStore {
  return {
    kind: 'file',
    async load(): Promise<LoadedBaseline> {
      let text: string
      try {
        text = await readRegularFile(path)
      } catch (error) {
        throw new ConfigError([`baseline-file: cannot read ${path} (${errorMessage(error)})`])
      }
      const results = readResults(text, `baseline-file ${path}`)
      // The file's own rounds are its only samples: one history entry with every metric key.
      const history = storableCells(results).length > 0 ? [historyEntry(results)] : []
      return { view: { results, history }, ref: refOf(results.run.hardware, `file ${shown}`, results, history) }
    },
    async save(): Promise<void> {
      throw new Error(`baseline-file ${path} is read-only: nothing is written to the store when baseline-file is set`)
    },
  }
}
