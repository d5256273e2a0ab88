/** The scripted nvidia-smi (test/helpers/nvidia-smi) as a host reader, one scenario per reader. */
import { join } from 'node:path'
import { runCommand, type Run } from '../../src/host/index.js'
import { ROOT } from '../helpers/root.js'

export const SMI_DIR = join(ROOT, 'test/helpers/nvidia-smi')

export function scriptedSmi(scenario: string, state?: string, vars: Record<string, string> = {}): Run {
  const env = [
    `FAKE_SMI_SCENARIO=${scenario}`,
    ...(state ? [`FAKE_SMI_STATE=${state}`] : []),
    ...Object.entries(vars).map(([k, v]) => `${k}=${v}`),
  ]
  return (args) => runCommand('env', [...env, join(SMI_DIR, 'nvidia-smi'), ...args])
}
