/**
 * Adapters for config tests. Only the fields the config layer reads are real; the sim stand-in
 * declares options and a default launch the way an adapter with `needsLaunchOrUrl: false` does.
 */
import { z } from 'zod'
import type { EngineAdapter } from '../../src/engines/types.js'
import type { TargetPlan } from '../../src/core/plan.js'
import { ConfigError } from '../../src/core/errors.js'

/** Like a real adapter: its own option problems as a ConfigError, machine problems as plain errors. */
function simLaunch(t: TargetPlan): string {
  const profile = t.engineOptions.profile
  if (profile === undefined) throw new ConfigError([`targets.${t.sourceKey}.profile: engine sim needs a profile`])
  if (profile === 'no-bundle') throw new Error('cannot find dist/cli/index.js')
  return `node sim.js --port {port} --profile ${String(profile)}`
}

function engine(name: string, extra: Partial<EngineAdapter> = {}): EngineAdapter {
  return { name, needsLaunchOrUrl: true, ...extra } as EngineAdapter
}

export const TEST_ENGINES: readonly EngineAdapter[] = [
  engine('vllm'),
  engine('llamacpp', { options: { slots: z.int().optional() } }),
  engine('openai'),
  engine('sim', {
    needsLaunchOrUrl: false,
    options: { profile: z.string().optional(), 'time-scale': z.number().optional(), seed: z.int().optional() },
    defaultLaunch: simLaunch,
  }),
]
