/**
 * The environment a launched engine (or stop command, or container) starts with: least privilege. Engines are
 * third-party programs; some print their environment when they crash and launch scripts often run `set -x`,
 * so nothing that lets a process act as this workflow reaches them. We start from the runner's environment and
 * remove the action's own inputs (`INPUT_*`, the `github-token` among them), the runner's plumbing and tokens
 * (`ACTIONS_*`: runtime, results, cache, OIDC request token and URL), `GITHUB_TOKEN`/`GH_TOKEN`, any variable
 * whose value is a registered secret, and every variable whose name looks secret unless the target lists it in
 * `pass-env` (e.g. `HF_TOKEN` for gated model downloads). The target's own `env` is added last.
 */
import { isActionCredential, looksSecret, secrets, type Redactor } from '../core/redact.js'

export interface EngineEnv {
  env: Record<string, string>
  /** Secret-looking variables of the runner's environment that were not passed (for the launch error's hint). */
  withheld: string[]
}

export function engineEnv(
  base: NodeJS.ProcessEnv,
  passEnv: readonly string[],
  extra: Record<string, string>,
  known: Redactor = secrets,
): EngineEnv {
  const pass = new Set(passEnv)
  const env: Record<string, string> = {}
  const withheld: string[] = []
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isActionCredential(name)) continue
    if ((looksSecret(name) || known.redact(value) !== value) && !pass.has(name)) {
      withheld.push(name)
      continue
    }
    env[name] = value
  }
  return { env: { ...env, ...extra }, withheld: withheld.sort() }
}

/** The hint a failed launch carries when it ran without secret-looking variables the runner had. */
export function withheldHint(withheld: readonly string[]): string {
  if (withheld.length === 0) return ''
  const names =
    withheld.length > 3 ? `${withheld.slice(0, 3).join(', ')} and ${withheld.length - 3} more` : withheld.join(', ')
  return `; ${names} ${withheld.length === 1 ? 'was' : 'were'} not passed to the engine (add ${withheld.length === 1 ? 'it' : 'them'} to pass-env if it needs ${withheld.length === 1 ? 'it' : 'them'})`
}

/** The run's id in every launch and `stop:` command's environment, as `{run}` is in their text. */
export const RUN_ID_VARIABLE = 'LLM_BENCH_RUN_ID'
