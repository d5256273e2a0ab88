/**
 * From the parsed file to target plans: matrix expansion (a cartesian product, like a GitHub job
 * matrix), placeholders, defaults and gate merged per target, scenario references resolved.
 */
import type { EngineAdapter, OptionShape } from '../engines/types.js'
import { ConfigError } from '../core/errors.js'
import { ID_PATTERN } from '../core/fields.js'
import type { Path, Problems } from './issues.js'
import { fill, fillPort, placeholdersIn, type Scope } from './placeholders.js'
import type { ScenarioPlan, TargetPlan } from '../core/plan.js'
import type { GateInput } from './gate-schema.js'
import type { ScenarioInput, Settings, TargetInput } from './schema.js'
import { resolveGate, resolveSettings } from './settings.js'
import { containerPlan } from './container-plan.js'
import { trimSlash } from '../core/url.js'
import { combinations, describe } from './matrix-combinations.js'
import { scenarioPlans, scenarioRefs } from './scenario-plans.js'
import { NO_MODEL, NO_QUANT, defined, names } from './target-names.js'
import { checkConversations } from './conversation-checks.js'
import { checkLaunchPort } from './launch-port.js'

export interface ExpandInput {
  defaults: Settings
  gate: GateInput
  /** Scenarios that validated, in file order. */
  scenarios: Record<string, ScenarioInput>
  /** Every scenario name in the file, valid or not, so a reference to a broken one is not also "unknown". */
  scenarioNames: string[]
  targets: Record<string, TargetInput>
  engines: readonly EngineAdapter[]
  /** Every target's workdir (TargetPlan.workdir): the base commit's worktree when the plan is an A/B's base arm. */
  workdir?: string
}

export function expandTargets(input: ExpandInput, problems: Problems): TargetPlan[] {
  const scenarios = new Map<string, ScenarioPlan[]>()
  for (const [id, s] of Object.entries(input.scenarios)) {
    if (!ID_PATTERN.test(id)) {
      problems.add(['scenarios', id], 'scenario names use letters, digits, ., _ and - (they are part of cell ids)')
    }
    scenarios.set(id, scenarioPlans(id, s))
  }
  const sources = new Map<string, string>()
  const plans: TargetPlan[] = []
  for (const [key, target] of Object.entries(input.targets)) {
    const path = ['targets', key]
    const adapter = input.engines.find((e) => e.name === target.engine)
    if (!adapter) continue // the schema has already reported it
    const refs = scenarioRefs(target, scenarios, input.scenarioNames, path, problems)
    for (const combo of combinations(target.matrix ?? {}, [...path, 'matrix'], problems)) {
      const plan = expandOne(key, target, combo, adapter, input, path, problems)
      const source = `targets.${key}${Object.keys(combo).length ? ` (${describe(combo)})` : ''}`
      const earlier = sources.get(plan.id)
      if (earlier) {
        problems.add(
          path,
          `target id "${plan.id}" is produced twice: by ${earlier} and by ${source} (cells ${plan.id}/… would collide)`,
        )
        continue
      }
      sources.set(plan.id, source)
      plan.scenarios = refs
      checkConversations(plan, adapter, path, problems)
      plans.push(plan)
    }
  }
  return plans
}

function expandOne(
  key: string,
  target: TargetInput,
  combo: Record<string, string>,
  adapter: EngineAdapter,
  input: ExpandInput,
  path: Path,
  problems: Problems,
): TargetPlan {
  const at = (...rest: (string | number)[]) => [...path, ...rest]
  const port = target.port !== undefined ? String(target.port) : undefined
  const { quant, id, model } = names(key, target, combo, path, problems)
  const values = { ...combo, target: id, ...defined({ quant, model, port }) }
  const missing = {
    ...(quant === undefined ? { quant: NO_QUANT } : {}),
    ...(model === undefined ? { model: NO_MODEL } : {}),
  }
  // {run} is the run's id, known only when the run starts; {port} too when the launcher picks it.
  const full: Scope = { values, missing, keep: [...(port ? [] : ['port']), 'run'] }
  const env = filledEnv(target, full, at('env'), problems)
  const engineOptions = optionValues(adapter, target, full, path, problems)
  const external = target.url !== undefined && target.launch === undefined && target.container === undefined
  checkLaunchPort(target, path, problems)
  if (external && port === undefined && target.url?.includes('{port}')) {
    problems.add(
      at('url'),
      '{port} has no value: nothing is launched for this target, so set port or write the port in the url',
    )
  }
  const url = checkUrl(fill(target.url ?? 'http://127.0.0.1:{port}', full, at('url'), problems), at('url'), problems)

  const plan: TargetPlan = {
    id,
    sourceKey: key,
    engine: adapter.name,
    url,
    external,
    env,
    matrix: combo,
    engineOptions,
    settings: resolveSettings(input.defaults, target, path, problems),
    gate: resolveGate(input.gate, target.gate, path, problems),
    scenarios: [],
  }
  if (quant !== undefined) plan.quant = quant
  if (model !== undefined) plan.model = model
  if (target.port !== undefined) plan.port = target.port
  if (target.stop !== undefined) plan.stop = fill(target.stop, full, at('stop'), problems)
  if (target.paths !== undefined) plan.paths = target.paths
  if (input.workdir !== undefined) plan.workdir = input.workdir
  setStart(plan, target, { adapter, scope: full, port, path }, problems)
  return plan
}

/** The target's `env`, placeholders filled; a name the shell could not export is a problem. */
function filledEnv(target: TargetInput, scope: Scope, path: Path, problems: Problems): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(target.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      problems.add([...path, name], 'environment variable names use letters, digits and _')
    env[name] = fill(String(value), scope, [...path, name], problems)
  }
  return env
}

/** How the target's server starts: its `launch`, its `container`, the engine's default launch, or (with `url`) not at all. */
function setStart(
  plan: TargetPlan,
  target: TargetInput,
  o: { adapter: EngineAdapter; scope: Scope; port: string | undefined; path: Path },
  problems: Problems,
): void {
  const { adapter, scope, path } = o
  if (target.launch !== undefined) plan.launch = fill(target.launch, scope, [...path, 'launch'], problems)
  else if (target.container !== undefined)
    plan.container = containerPlan(target.container, scope, [...path, 'container'], problems)
  else if (target.url === undefined && adapter.needsLaunchOrUrl === false) {
    const launch = defaultLaunch(adapter, plan, o.port, path, problems)
    if (launch !== undefined) plan.launch = launch
  } else if (target.url === undefined) {
    problems.add(
      path,
      `engine ${adapter.name} needs launch (a command that starts the server) or url (a server already running)`,
    )
  }
}

/** The options the schema parsed; the strings it left with placeholders are filled, then parsed with the engine's field. */
function optionValues(
  adapter: EngineAdapter,
  target: TargetInput,
  scope: Scope,
  path: Path,
  problems: Problems,
): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [option, field] of Object.entries(adapter.options ?? {})) {
    const value = (target as Record<string, unknown>)[option]
    if (value === undefined) continue
    const raw = typeof value === 'string' && placeholdersIn(value).length > 0
    const keep = [...scope.keep, ...(adapter.runtimePlaceholders?.[option] ?? [])]
    values[option] = raw ? filledOption(field, value, { ...scope, keep }, [...path, option], problems) : value
  }
  for (const option of adapter.requiredOptions ?? [])
    if (values[option] === undefined) problems.add([...path, option], `required for engine ${adapter.name}`)
  return values
}

function filledOption(field: OptionShape[string], text: string, scope: Scope, path: Path, problems: Problems): unknown {
  const before = problems.size
  const filled = fill(text, scope, path, problems)
  if (problems.size > before) return filled
  const parsed = field.safeParse(filled)
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues)
    problems.add([...path, ...(issue.path as (string | number)[])], issue.message)
  return filled
}

function defaultLaunch(
  adapter: EngineAdapter,
  plan: TargetPlan,
  port: string | undefined,
  path: Path,
  problems: Problems,
): string | undefined {
  try {
    const launch = adapter.defaultLaunch?.(plan)
    return launch !== undefined && port ? fillPort(launch, port) : launch
  } catch (error) {
    // An adapter checks its own options and words its problems with their paths already.
    if (error instanceof ConfigError) error.problems.forEach((text) => problems.addText(path, text))
    else
      problems.add(
        path,
        `engine ${adapter.name} cannot build its launch command: ${error instanceof Error ? error.message : String(error)}`,
      )
    return undefined
  }
}

function checkUrl(url: string, path: Path, problems: Problems): string {
  let parsed: URL | undefined
  try {
    parsed = new URL(url.replaceAll('{port}', '1'))
  } catch {
    parsed = undefined
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    problems.add(path, `${JSON.stringify(url)} is not an http(s) URL`)
  } else if (/\/v1\/?$/.test(parsed.pathname)) {
    problems.add(path, 'give the server root without /v1 (each engine adds its own paths)')
  }
  return trimSlash(url)
}
