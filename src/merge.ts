/** `mode: merge`: gather the results files that shards wrote (downloaded as artifacts) into one run. */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Plan } from './core/plan.js'
import { errorCell } from './cells.js'
import { ConfigError } from './core/errors.js'
import type { Logger } from './core/log.js'
import { RESULTS_SCHEMA, type CellResult, type ResultsFile } from './core/results.js'

const SHARD_FILE = /^results(-shard-\d+-of-\d+)?\.json$/

async function* walk(dir: string, depth = 0): AsyncGenerator<string> {
  if (depth > 4) return
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && entry.name !== 'logs') yield* walk(path, depth + 1)
    else if (entry.isFile() && SHARD_FILE.test(entry.name) && !(depth === 0 && entry.name === 'results.json')) yield path
  }
}

/** Cells of every shard results file under `dir`, restricted to the plan's cells. */
export async function readShardResults(dir: string, plan: Plan, log: Logger): Promise<CellResult[]> {
  const wanted = new Set(plan.cells.map((c) => c.id))
  const byId = new Map<string, CellResult>()
  let files = 0
  for await (const path of walk(dir)) {
    let parsed: ResultsFile
    try {
      parsed = JSON.parse(await readFile(path, 'utf8')) as ResultsFile
    } catch (error) {
      throw new ConfigError([`${relative(dir, path)}: not a JSON results file (${(error as Error).message})`])
    }
    if (parsed?.schema !== RESULTS_SCHEMA || !Array.isArray(parsed.cells)) {
      log.warn(`${relative(dir, path)}: skipped, not a ${RESULTS_SCHEMA} file`)
      continue
    }
    files++
    for (const cell of parsed.cells) {
      if (!wanted.has(cell.id) || cell.verdict?.status === 'missing') continue
      if (byId.has(cell.id)) log.warn(`${cell.id}: found in more than one shard file; keeping ${relative(dir, path)}`)
      byId.set(cell.id, cell)
    }
  }
  if (files === 0) throw new ConfigError([`results-dir: no shard results files (results-shard-i-of-n.json) under ${dir}`])
  log.info(`merged ${byId.size} cells from ${files} results files`)
  // A planned cell no shard reported (its job died or was cancelled) must not vanish silently.
  return plan.cells.map((c) => byId.get(c.id) ?? errorCell(c, 'no shard results file contained this cell', {}))
}
