/** A target's `container:` block as the plan holds it: every placeholder filled except `{port}`. */
import type { ContainerPlan } from '../core/plan.js'
import type { Path, Problems } from './issues.js'
import { fill, type Scope } from './placeholders.js'
import type { TargetInput } from './schema.js'

type ContainerInput = NonNullable<TargetInput['container']>

export function containerPlan(input: ContainerInput, scope: Scope, path: Path, problems: Problems): ContainerPlan {
  const at = (...rest: (string | number)[]) => [...path, ...rest]
  const words = (value: string | string[] | undefined, key: string) =>
    value === undefined
      ? undefined
      : typeof value === 'string'
        ? fill(value, scope, at(key), problems)
        : value.map((w, i) => fill(w, scope, at(key, i), problems))
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(input.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      problems.add(at('env', name), 'environment variable names use letters, digits and _')
    env[name] = fill(String(value), scope, at('env', name), problems)
  }
  const plan: ContainerPlan = {
    image: fill(input.image, scope, at('image'), problems),
    volumes: (input.volumes ?? []).map((v, i) => fill(v, scope, at('volumes', i), problems)),
    env,
    gpus: input.gpus,
  }
  const command = words(input.command, 'command')
  const runArgs = words(input['run-args'], 'run-args')
  if (command !== undefined) plan.command = command
  if (runArgs !== undefined) plan.runArgs = runArgs
  if (input['shm-size'] !== undefined) plan.shmSize = input['shm-size']
  if (input.runtime !== undefined) plan.runtime = input.runtime
  return plan
}
