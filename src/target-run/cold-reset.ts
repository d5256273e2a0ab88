/**
 * A clean prefix cache per cell: right before each measurement's cold round the engine's prefix cache is emptied
 * where its adapter offers a reset (EngineAdapter.resetPrefixCache, engines/cache-reset.ts), so neither an earlier
 * cell nor an earlier run on a `url:` server (which sent the same prompts: bench/prompts/indices.ts) warms the
 * cell's requests. Bounded in time and never fatal: a reset not done is recorded with its reason
 * (`CellResult.prefixCacheReset`) and the cell is measured all the same.
 */
import { errorMessage } from '../core/errors.js'
import type { Logger } from '../core/log.js'
import type { PrefixCacheReset } from '../core/results.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'

/** Past this the reset is given up: the adapter bounds each call, this bounds them all (llama.cpp's slots). */
export const RESET_BOUND_MS = 30_000

export interface ResetTarget {
  adapter: EngineAdapter
  http: HttpPorts
  baseUrl: string
  log: Logger
  cellId: string
}

/** Empties the engine's prefix cache, or says why not; never throws. */
export async function resetPrefixCache(t: ResetTarget): Promise<PrefixCacheReset> {
  const { adapter } = t
  if (!adapter.resetPrefixCache) return { reset: false, reason: `${adapter.name} offers no reset` }
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<PrefixCacheReset>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({ reset: false, reason: `${adapter.name}: no answer to the reset within ${RESET_BOUND_MS / 1000} s` }),
      RESET_BOUND_MS,
    )
  })
  const asked = adapter
    .resetPrefixCache(t.http, t.baseUrl)
    .catch((error: unknown): PrefixCacheReset => ({ reset: false, reason: `${adapter.name}: ${errorMessage(error)}` }))
  const outcome = await Promise.race([asked, late]).finally(() => clearTimeout(timer))
  t.log.info(
    outcome.reset
      ? `${t.cellId}: prefix cache reset (${outcome.via})`
      : `${t.cellId}: prefix cache not reset: ${outcome.reason}`,
  )
  return outcome
}

/** The hook a measurement calls before its cold round, and what the reset came to (undefined until it ran). */
export function coldReset(t: ResetTarget): {
  beforeCold: () => Promise<void>
  outcome: () => PrefixCacheReset | undefined
} {
  let outcome: PrefixCacheReset | undefined
  return {
    beforeCold: async () => {
      outcome = await resetPrefixCache(t)
    },
    outcome: () => outcome,
  }
}
