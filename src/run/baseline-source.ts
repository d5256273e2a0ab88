/**
 * Where a run's baseline comes from and what the judge must know of the run around it: the store (a
 * `baseline-file`, or the data branch through the bounded GitHub API), the baseline loaded from it — or why
 * there is none, failing closed — and the cells of the whole run.
 */
import { isAbsolute, relative, resolve } from 'node:path'
import { isFirstRun, type BaselineView, type RunCells } from '../compare/index.js'
import { matchesOnly } from '../config/index.js'
import type { ActionOptions } from '../config/inputs.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import type { BoundedGitHub, OperationApi } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { Plan } from '../core/plan.js'
import type { BaselineRef } from '../core/results.js'
import { branchStore, fileStore, type BaselineStore } from '../store/index.js'
import { workloadOf } from '../target-run/cell-result.js'
import type { Behaviour, RunContext } from './context.js'

export interface LoadedBaseline {
  view: BaselineView
  ref?: BaselineRef
}

/** The baseline-file, or the data branch: each read and each write one bounded operation of the API. */
export function makeStore(
  options: ActionOptions,
  deps: { cwd?: string; context: RunContext; log: Logger },
  github: BoundedGitHub | undefined,
  writes: boolean,
): BaselineStore | undefined {
  if (options.baselineFile) {
    const cwd = deps.cwd ?? process.cwd()
    const path = resolve(cwd, options.baselineFile)
    // Reports name it relative to the workspace: a runner's absolute paths say nothing to a reviewer.
    const inside = relative(cwd, path)
    return fileStore(path, inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : options.baselineFile)
  }
  if (!github) return undefined
  const on = (api: OperationApi) =>
    branchStore({ ...api, branch: options.baselineBranch, log: deps.log, replaceUnreadable: writes })
  return {
    kind: 'branch',
    load: (hardware) => github.operation('the baseline read', (api) => on(api).load(hardware)),
    save: (...update) => github.operation('the baseline write', (api) => on(api).save(...update)),
    keys: () => github.operation("listing the store's hardware keys", (api) => on(api).keys()),
  }
}

/**
 * The baseline, or why there is none. A missing branch or file is "no baseline yet" (the store returns no ref);
 * any other failure to read the store is not: the run is an error naming the file and the reason, never a
 * silent "new, passes". An unusable `baseline-file` is the configuration's fault, like a bad matrix file.
 */
/**
 * What the judge needs to know of the whole run (a shard sees only its part; the merge run judges the whole):
 * every planned cell, `only` for the baseline cells that are not this run's, and on a first run that does not
 * write the baseline, the other hardware keys the store holds.
 */
export async function cellsOfRun(
  plan: Plan,
  baseline: LoadedBaseline,
  store: BaselineStore | undefined,
  hardware: string,
  behaviour: Behaviour,
  deps: { options: ActionOptions; log: Logger },
): Promise<RunCells> {
  const { options, log } = deps
  const cells = plan.cells.map((c) => ({
    id: c.id,
    target: c.target.id,
    scenario: c.scenario.id,
    engine: c.target.engine,
    quant: c.target.quant ?? null,
    workload: workloadOf(c.scenario, c.target.settings),
  }))
  const run: RunCells = { cells, selected: (id) => matchesOnly(id, options.only) }
  if (!isFirstRun(baseline.view) || !store?.keys || behaviour.writeBaseline) return run
  try {
    const others = (await store.keys()).filter((key) => key !== hardware)
    return { ...run, hardware: { key: hardware, others } }
  } catch (error) {
    log.warn(`could not list the store's hardware keys (${errorMessage(error)}): a first run on ${hardware} passes`)
    return run
  }
}

export async function loadBaseline(
  store: BaselineStore,
  hardware: string,
  log: Logger,
): Promise<LoadedBaseline | { unreadable: string } | { configError: ConfigError }> {
  try {
    const loaded = await store.load(hardware)
    if (!loaded.ref) log.info(`no baseline for hardware ${hardware} yet: every cell is new and passes`)
    return loaded
  } catch (error) {
    if (error instanceof ConfigError && store.kind === 'file') {
      log.error(`baseline-file could not be used: ${error.problems.join('; ')}`)
      return { configError: error }
    }
    const reason = `the baseline could not be read (${errorMessage(error)})`
    log.error(`${reason}: the run fails closed, nothing is compared or launched`)
    return { unreadable: reason }
  }
}
