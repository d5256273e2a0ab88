/**
 * The same-box A/B of a merged run (docs/workflows.md, "Shards"; docs/same-box.md). `merge` launches nothing: the A/B
 * runs in the shards. A shard that compares on a pull request tests its own targets, and its cells arrive with their
 * `ab`: a verdict an A/B gave stands (judgeAll keeps it), and a cell whose A/B did not run still says why once the
 * merge has judged it again. A cell that wants an A/B by the merge's verdict (target/ab-target.ts) but arrives with no
 * record of one — its shard only measured (`mode: run`), or judged it differently — is said per cell, and its
 * stored-baseline verdict stands: a base arm that did not run is never a silent pass.
 */
import type { Plan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { abNotRun, abWanted } from '../target/ab-target.js'
import type { ShardResults } from './shard-files.js'

const HOW = 'on a pull request, run the shards with mode: compare'

/** The merged cells judged (`judged`, in the order `read` holds them), with what each shard's A/B said, or why none ran. */
export function shardAb(judged: readonly CellResult[], read: ShardResults, plan: Plan): CellResult[] {
  const targets = new Map(plan.targets.map((t) => [t.id, t]))
  return judged.map((cell, i) => {
    if (cell.ab?.status === 'not-run') {
      // Judged again on the merge's baseline: its verdict says once more that the stored baseline decided it.
      const { status: _status, reason = '', ...record } = cell.ab
      return abNotRun(cell, reason, record)
    }
    const target = targets.get(cell.target)
    if (cell.ab || !target || target.external) return cell
    const wanted = abWanted(cell, target.settings.ab.mode)
    return wanted ? abNotRun(cell, notRunReason(read.modes.get(cell.id), read.cells[i], wanted)) : cell
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
