/** A TargetPlan for launcher tests, with short timeouts. */
import type { TargetPlan } from '../../src/core/plan.js'

export function targetPlan(overrides: Partial<TargetPlan> & { readyTimeoutMs?: number } = {}): TargetPlan {
  const { readyTimeoutMs = 10_000, ...rest } = overrides
  return {
    id: 'fake-target',
    sourceKey: 'fake-target',
    engine: 'vllm',
    url: 'http://127.0.0.1:{port}',
    external: false,
    env: {},
    matrix: {},
    engineOptions: {},
    settings: {
      rounds: 1,
      discard: 0,
      readyTimeoutMs,
      requestTimeoutMs: 10_000,
      api: 'completions',
      confirm: 0,
      confirmFresh: false,
      maxRounds: 1,
      noiseFloor: 0.015,
      creepWindow: 20,
      bisect: { mode: 'off', budgetMs: 4 * 3_600_000 },
      memoryFloor: { kind: 'bytes', value: 0 },
      dropCaches: false,
      maxErrorShare: 0.5,
      passEnv: [],
      allowGpuProcesses: [],
      requestBody: {},
      quality: false,
      ab: { mode: 'off', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 },
    },
    gate: {},
    scenarios: [],
    ...rest,
  }
}
