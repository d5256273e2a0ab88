/**
 * The same-box A/B of a merged run (docs/workflows.md, docs/same-box.md). `merge` launches nothing: the A/B runs in
 * the shards. A shard that compares on a pull request tests its own targets, and its cells arrive with their `ab`:
 * the judge keeps a verdict an A/B gave, and a cell whose A/B did not run still says why once the merge has judged
 * it again (compare/cell-judge.ts). A cell that wants an A/B by the merge's verdict but arrives with no record of
 * one — its shard only measured (`mode: run`), or judged it differently — is said per cell, and its
 * stored-baseline verdict stands: a base arm that did not run is never a silent pass.
 */
import type { CellJudge } from '../compare/index.js'
import type { CellResult } from '../core/results.js'
import type { ShardResults } from './shard-files.js'

const HOW = 'on a pull request, run the shards with mode: compare'

/** The merged cells judged (`judged`, in the order `read` holds them), with why a cell that wants an A/B has none. */
export function shardAb(judged: readonly CellResult[], read: ShardResults, judge: CellJudge): CellResult[] {
  return judged.map((cell, i) => {
    const wanted = cell.ab ? undefined : judge.abWanted(cell)
    if (!wanted) return cell
    return judge.decide({ judged: cell, abNotRun: notRunReason(read.modes.get(cell.id), read.cells[i], wanted) })
  })
}

/** Why the shard that measured a cell ran no A/B for it, by the mode its results file recorded. */
function notRunReason(mode: string | undefined, shardCell: CellResult, wanted: string): string {
  if (mode === 'run')
    return `the shard ran mode: run, which only measures, so it judged nothing and ran no A/B (${HOW})`
  if (mode === 'compare')
    return `its shard judged it ${shardCell.verdict.status} against the stored baseline and wanted none; judged again on merging, ${wanted}`
  if (mode) return `the shard ran mode: ${mode}, which runs no A/B (${HOW})`
  return `its shard's results file records no mode (an earlier release) and no A/B (${HOW})`
}
