/**
 * A bare number where a duration is wanted is refused, and the error suggests the unit the key most likely meant:
 * milliseconds for an `slo` bound (per-request latencies, as `vllm bench serve --goodput` takes them), seconds for
 * timeouts, budgets and the simulator's times.
 */
import { describe, expect, it } from 'vitest'
import { ENGINES } from '../../src/engines/registry.js'
import { editedConfigs, type Config } from './edited.js'

const configs = editedConfigs()
const { problemsOf } = configs

const chat = (c: Config) => c.scenarios['chat-1k']
const target = (c: Config) => c.targets['vllm-fp8']

describe('the unit a bare number of a duration key is hinted with', () => {
  it.each<[string, (c: Config) => void, string]>([
    [
      'an slo tpot bound: ms',
      (c) => (chat(c).slo = { tpot: 80 }),
      'scenarios.chat-1k.slo.tpot: needs a unit, e.g. "80ms"',
    ],
    [
      'an slo ttft bound: ms',
      (c) => (chat(c).slo = { ttft: 2000 }),
      'scenarios.chat-1k.slo.ttft: needs a unit, e.g. "2000ms"',
    ],
    [
      'an slo e2e bound: ms',
      (c) => (chat(c).slo = { e2e: 30000 }),
      'scenarios.chat-1k.slo.e2e: needs a unit, e.g. "30000ms"',
    ],
    ['a timeout: s', (c) => (c.defaults = { 'ready-timeout': 20 }), 'defaults.ready-timeout: needs a unit, e.g. "20s"'],
    [
      'a request timeout of a target: s',
      (c) => (target(c)['request-timeout'] = 600),
      'targets.vllm-fp8.request-timeout: needs a unit, e.g. "600s"',
    ],
    ['a budget: s', (c) => (c.defaults = { 'ab-budget': 3600 }), 'defaults.ab-budget: needs a unit, e.g. "3600s"'],
  ])('%s', async (_name, edit, problem) => {
    const problems = await problemsOf(edit)
    // Each problem ends with the line of the file it is on.
    expect(
      problems.map((p) => p.replace(/ \(line \d+\)$/, '')),
      problems.join('\n'),
    ).toContain(problem)
  })

  it.each([
    ['load-time', 5],
    ['slow-window', 2],
  ])("the simulator's %s: s", (key, value) => {
    const sim = ENGINES.find((e) => e.name === 'sim')!
    const parsed = sim.options![key].safeParse(value)
    expect(parsed.success).toBe(false)
    expect(parsed.error!.issues[0].message).toBe(`needs a unit, e.g. "${value}s"`)
  })

  it('reads the hinted text as the duration it names', () => {
    const plan = configs.plan((config) => {
      chat(config).slo = { tpot: '80ms' }
      config.defaults = { 'ready-timeout': '20s' }
    })
    const cell = plan.cells.find((c) => c.scenario.id === 'chat-1k')!
    expect(cell.scenario.slo).toEqual({ tpotMs: 80 })
    expect(cell.target.settings.readyTimeoutMs).toBe(20_000)
  })
})
