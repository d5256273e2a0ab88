/**
 * `turns`, `turn-tokens` and `thinking` in the matrix file: they reach the plan, what `validate` prints and the
 * target's gate line; every bad combination is an error naming the field (a completions target, rate,
 * prefix-tokens, text prompts, turn-tokens alone, a request-body that sets enable_thinking itself).
 */
import { describe, expect, it } from 'vitest'
import { formatPlan, formatWorkload } from '../../src/config/plan-text.js'
import { buildPlan } from '../../src/config/index.js'
import { ENGINES } from '../../src/engines/registry.js'
import { editedConfigs, type Config } from './edited.js'
import { baseConfig } from './write.js'

const { plan, problemsOf } = editedConfigs()

const chat = (c: Config) => (c.defaults = { api: 'chat' })
const conversation = (c: Config, extra: Record<string, unknown> = {}) => {
  chat(c)
  c.scenarios.conv = {
    'input-tokens': 512,
    'output-tokens': 64,
    concurrency: 2,
    turns: 4,
    'turn-tokens': 128,
    ...extra,
  }
}

describe('turns and thinking in the plan', () => {
  it('reach the scenario plan, the workload line and the gate line', () => {
    const p = plan((c) => conversation(c, { thinking: 'off' }))
    const conv = p.targets[0].scenarios.find((s) => s.id === 'conv')!
    expect(conv).toMatchObject({ turns: 4, turnTokens: 128, thinking: false, requests: 2, concurrency: 2 })
    expect(formatWorkload(conv)).toBe(
      '512 in → 64 out, concurrency 2, 2 conversations/round, 4 turns each (the answer and +128 tokens a turn), thinking off',
    )
    expect(formatPlan(p)).toMatch(/gate .*ttft-per-1k-added worse by > 10% and 20ms/)
  })

  it('leaves a plan without them as it was, and its gate line without the conversation metric', () => {
    const p = plan(chat)
    expect(p.targets[0].scenarios[0]).not.toHaveProperty('turns')
    expect(p.targets[0].scenarios[0]).not.toHaveProperty('thinking')
    expect(formatPlan(p)).not.toContain('ttft-per-1k-added')
  })

  it('takes thinking on a plain chat scenario', () => {
    const p = plan((c) => {
      chat(c)
      c.scenarios['chat-1k'].thinking = 'on'
    })
    expect(p.targets[0].scenarios[0].thinking).toBe(true)
  })
})

describe('bad combinations name the field', () => {
  it.each([
    [
      'turns on a completions target',
      (c: Config) => {
        conversation(c)
        c.defaults.api = 'completions'
      },
      /^targets\.vllm-fp8\.api: completions cannot send scenario "conv" \(turns: .*set api: chat/,
    ],
    [
      'thinking on a completions target',
      (c: Config) => (c.scenarios['chat-1k'].thinking = 'off'),
      /^targets\.vllm-fp8\.api: completions cannot send scenario "chat-1k" \(thinking/,
    ],
    [
      'turns without turn-tokens',
      (c: Config) => conversation(c, { 'turn-tokens': undefined }),
      /^scenarios\.conv\.turn-tokens: required with turns/,
    ],
    [
      'turn-tokens without turns',
      (c: Config) => conversation(c, { turns: undefined }),
      /^scenarios\.conv\.turn-tokens: only with turns/,
    ],
    [
      'turns with rate',
      (c: Config) => conversation(c, { rate: 2, concurrency: undefined, requests: 4 }),
      /^scenarios\.conv\.rate: a conversation sends its turns one after another/,
    ],
    [
      'turns with prefix-tokens',
      (c: Config) => conversation(c, { 'prefix-tokens': 256 }),
      /^scenarios\.conv\.prefix-tokens: with turns/,
    ],
    [
      'turns with text prompts',
      (c: Config) => conversation(c, { prompts: 'text' }),
      /^scenarios\.conv\.prompts: turns goes with prompts: synthetic/,
    ],
    [
      'one turn',
      (c: Config) => conversation(c, { turns: 1 }),
      /^scenarios\.conv\.turns: must be a whole number from 2 to 64/,
    ],
    [
      'thinking: yes',
      (c: Config) => conversation(c, { thinking: 'yes' }),
      /^scenarios\.conv\.thinking: must be on or off/,
    ],
    [
      'thinking with request-body enable_thinking',
      (c: Config) => {
        conversation(c, { thinking: 'on' })
        c.defaults['request-body'] = { chat_template_kwargs: { enable_thinking: false } }
      },
      /^targets\.vllm-fp8\.request-body\.chat_template_kwargs\.enable_thinking: clashes with scenario "conv"'s thinking/,
    ],
  ])('%s', async (_, edit, message) => {
    const problems = await problemsOf(edit as (c: Config) => void)
    expect(
      problems.some((p) => message.test(p)),
      problems.join('\n'),
    ).toBe(true)
  })

  it('refuses turns for a target another tool measures, naming the scenario key', () => {
    const config = baseConfig()
    conversation(config)
    config.targets = { ext: { engine: 'external', run: 'tool --out {out}', format: 'vllm', url: 'http://127.0.0.1:1' } }
    const build = () => buildPlan(config, { configPath: 'test.yml', resolvedPath: '/tmp/test.yml', engines: ENGINES })
    expect(build).toThrow(/scenarios\.conv\.turns: target ext \(engine external\) is measured by another tool/)
  })

  it('lets request-body keep its other chat_template_kwargs next to thinking', () => {
    const p = plan((c) => {
      conversation(c, { thinking: 'on' })
      c.defaults['request-body'] = { chat_template_kwargs: { custom: 1 } }
    })
    expect(p.targets[0].settings.requestBody).toEqual({ chat_template_kwargs: { custom: 1 } })
  })
})
