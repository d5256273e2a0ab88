/**
 * `prompts: synthetic | text` in the matrix file: the default leaves a scenario as it was, `text` reaches the
 * plan and what `validate` prints, and a bad value or a text prompt too short for an instruction is an error
 * naming the field.
 */
import { describe, expect, it } from 'vitest'
import { formatPlan, formatWorkload } from '../../src/config/plan-text.js'
import { TEXT_MIN_INPUT_TOKENS } from '../../src/config/scenario-schema.js'
import { editedConfigs } from './edited.js'

const { plan, problemsOf } = editedConfigs()

describe('prompts', () => {
  it('is absent from a scenario that does not set it or sets synthetic: the plan is what it was', () => {
    const before = plan(() => {})
    const synthetic = plan((c) => (c.scenarios['chat-1k'].prompts = 'synthetic'))
    expect(synthetic.targets[0].scenarios).toEqual(before.targets[0].scenarios)
    expect(before.targets[0].scenarios[0]).toEqual({
      id: 'chat-1k',
      inputTokens: 1024,
      outputTokens: 128,
      concurrency: 8,
      requests: 8,
    })
    expect(formatPlan(synthetic)).toBe(formatPlan(before))
  })

  it('text reaches the plan and validate says what it sends', () => {
    const p = plan((c) => (c.scenarios['chat-1k'].prompts = 'text'))
    const [chat, long] = p.targets[0].scenarios
    expect(chat.prompts).toBe('text')
    expect(long.prompts).toBeUndefined()
    expect(formatWorkload(chat)).toBe(
      '1024 in → 128 out, concurrency 8, 8 requests/round, text prompts (an instruction and a passage of generated prose each)',
    )
    expect(formatWorkload(long)).toBe('8192 in → 256 out, concurrency 1, 1 request/round')
    expect(formatPlan(p)).toContain(
      'vllm-fp8/chat-1k  1024 in → 128 out, concurrency 8, 8 requests/round, text prompts',
    )
  })

  it.each([
    ['prose', 'must be synthetic or text'],
    [true, 'must be synthetic or text'],
  ])('%s is an error naming the field', async (value, says) => {
    const problems = await problemsOf((c) => (c.scenarios['chat-1k'].prompts = value))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^scenarios\.chat-1k\.prompts: /)
    expect(problems[0]).toContain(says)
  })

  it('text needs room for an instruction and a passage', async () => {
    const problems = await problemsOf((c) => {
      c.scenarios.tiny = { 'input-tokens': 32, 'output-tokens': 8, prompts: 'text' }
    })
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^scenarios\\.tiny\\.input-tokens: 32 is too short for prompts: text; at least ${TEXT_MIN_INPUT_TOKENS} `,
        ),
      ),
    ])
    const fine = plan((c) => (c.scenarios.tiny = { 'input-tokens': 32, 'output-tokens': 8, prompts: 'synthetic' }))
    expect(fine.targets[0].scenarios.map((s) => s.id)).toContain('tiny')
  })
})
