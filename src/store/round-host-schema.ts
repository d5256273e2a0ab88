/** zod schema of a round's host state (`rounds[].host`), mirroring `RoundHost` in core/round-host.ts. */
import { bool, list, num, obj, str } from './results-fields.js'

export const roundHostSchema = obj({
  uptimeS: num.optional(),
  launchAgeMs: num.optional(),
  attached: bool.optional(),
  memory: obj({ beforeBytes: num, afterBytes: num, minBytes: num }).optional(),
  swap: obj({ usedBytes: num, inPages: num, outPages: num }).optional(),
  cpu: obj({ busy: num, cores: num, top: list(obj({ pid: num, comm: str, cores: num })) }).optional(),
  gpuProcesses: list(
    obj({ pid: num, name: str, gpu: num.optional(), allowed: bool.optional(), outside: bool.optional() }),
  ).optional(),
  samples: num,
  disturbed: list(str).optional(),
})
