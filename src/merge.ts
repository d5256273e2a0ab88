/** `mode: merge`: gather the results files that shards wrote (downloaded as artifacts) into one run. */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Plan } from './core/plan.js'
import { errorCell } from './cells.js'
import { ConfigError, errorMessage } from './core/errors.js'
import type { Logger } from './core/log.js'
import { RESULTS_SCHEMA, type CellResult } from './core/results.js'
import { isForeign, parseJson, resultsFromJson } from './store/index.js'

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

async function readText(path: string, where: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigError([`${where}: cannot read (${errorMessage(error)})`])
  }
}

/** Cells of every shard results file under `dir`, restricted to the plan's cells. */
export async function readShardResults(dir: string, plan: Plan, log: Logger): Promise<CellResult[]> {
  const wanted = new Set(plan.cells.map((c) => c.id))
  const byId = new Map<string, CellResult>()
  let files = 0
  for await (const path of walk(dir)) {
    const where = relative(dir, path)
    const value = parseJson(await readText(path, where), where)
    // Another tool's JSON under a matching name is not ours to judge; a file that says it is ours must read.
    if (isForeign(value)) {
      log.warn(`${where}: skipped, not a ${RESULTS_SCHEMA} file (no "schema" naming llm-bench-gate)`)
      continue
    }
    const parsed = resultsFromJson(value, where)
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
