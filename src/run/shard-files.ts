/** `mode: merge`: gather the results files that shards wrote (downloaded as artifacts) into one run. */
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Plan } from '../core/plan.js'
import { errorCell } from '../target-run/cell-result.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import type { Logger } from '../core/log.js'
import { RESULTS_SCHEMA, type CellResult, type ShardTally } from '../core/results.js'
import { shardOf } from '../config/index.js'
import { isForeign, parseJson, resultsFromJson } from '../store/index.js'
import { readRegularFile } from '../io/safe-fs.js'

const SHARD_FILE = /^results(-shard-\d+-of-\d+)?\.json$/

async function* walk(dir: string, depth = 0): AsyncGenerator<string> {
  if (depth > 4) return
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && entry.name !== 'logs') yield* walk(path, depth + 1)
    else if (entry.isFile() && SHARD_FILE.test(entry.name) && !(depth === 0 && entry.name === 'results.json'))
      yield path
  }
}

async function readText(path: string, where: string): Promise<string> {
  try {
    return await readRegularFile(path)
  } catch (error) {
    throw new ConfigError([`${where}: cannot read (${errorMessage(error)})`])
  }
}

export interface ShardResults {
  cells: CellResult[]
  /** The shard count the files name (`run.shard: i/n`) and the indices no file came from. */
  shards?: ShardTally
  /** Per cell read from a file, the mode that file's run recorded (`run.mode`; undefined in older files). */
  modes: ReadonlyMap<string, string | undefined>
}

/** Cells of every shard results file under `dir`, restricted to the plan's cells. */
export async function readShardResults(dir: string, plan: Plan, log: Logger): Promise<ShardResults> {
  const wanted = new Set(plan.cells.map((c) => c.id))
  const byId = new Map<string, { cell: CellResult; startedAt: string; where: string; mode?: string }>()
  const seen: string[] = []
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
    if (parsed.run.shard) seen.push(parsed.run.shard)
    for (const cell of parsed.cells) {
      // A skipped cell (`select: changed`) is the shard's report on it; a baseline cell it did not run is not.
      if (!wanted.has(cell.id) || (cell.verdict?.status === 'missing' && !cell.verdict.skipped)) continue
      // A re-run's attempt uploads its own artifact: the latest run of a cell wins (file order breaks a tie).
      const earlier = byId.get(cell.id)
      const later = !earlier || parsed.run.startedAt >= earlier.startedAt
      if (earlier)
        log.warn(
          `${cell.id}: found in more than one shard file; keeping ${later ? where : earlier.where} (the later run)`,
        )
      if (later) byId.set(cell.id, { cell, startedAt: parsed.run.startedAt, where, mode: parsed.run.mode })
    }
  }
  if (files === 0)
    throw new ConfigError([`results-dir: no shard results files (results-shard-i-of-n.json) under ${dir}`])
  log.info(`merged ${byId.size} cells from ${files} results files`)
  const shards = tallyShards(seen, log)
  if (shards?.missing.length) log.error(`shard(s) ${shards.missing.join(', ')} of ${shards.count} sent no results file`)
  const assigned = shards ? shardOf(plan.targets, shards.count) : []
  const shardOfTarget = new Map(plan.targets.map((t, i) => [t.id, assigned[i]]))
  // A planned cell no shard reported (its job died or was cancelled) must not vanish silently.
  return {
    cells: plan.cells.map(
      (c) => byId.get(c.id)?.cell ?? errorCell(c, missingReason(shards, shardOfTarget.get(c.target.id)), {}),
    ),
    shards,
    modes: new Map([...byId].map(([id, read]) => [id, read.mode])),
  }
}

/** Shard indices from the files' `i/n`; the count is the one most files name (a file of another split is warned about). */
function tallyShards(seen: readonly string[], log: Logger): ShardTally | undefined {
  const parsed = seen.flatMap((s) => {
    const m = /^(\d+)\/(\d+)$/.exec(s)
    return m ? [{ index: Number(m[1]), count: Number(m[2]) }] : []
  })
  if (!parsed.length) return undefined
  const votes = new Map<number, number>()
  for (const p of parsed) votes.set(p.count, (votes.get(p.count) ?? 0) + 1)
  const count = [...votes].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0]
  for (const p of parsed)
    if (p.count !== count)
      log.warn(
        `a results file of shard ${p.index}/${p.count} does not belong to a split into ${count} shards; its cells are still merged`,
      )
  const present = new Set(parsed.filter((p) => p.count === count).map((p) => p.index))
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.has(i))
  return { count, missing }
}

function missingReason(shards: ShardTally | undefined, shard: number | undefined): string {
  if (!shards || shard === undefined) return 'no shard results file contained this cell'
  if (shards.missing.includes(shard))
    return `shard ${shard}/${shards.count} sent no results file (its job failed or was cancelled, or its artifact was not downloaded)`
  return `shard ${shard}/${shards.count} sent results without this cell`
}
