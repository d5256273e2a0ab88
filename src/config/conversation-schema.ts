/**
 * A scenario's conversation keys (`turns`, `turn-tokens`) and the chat template's thinking switch (`thinking`),
 * and how they go with the other workload keys. A conversation is `turns` chat requests sent one after another,
 * each resending the conversation so far with the previous answer and a new user message appended, so that a
 * prefix cache should serve what came before (docs/matrix-file.md, "Conversations"). Whether the target's API is
 * chat is checked where targets meet scenarios (conversation-checks.ts).
 */
import { z } from 'zod'
import { expected, whole } from '../core/fields.js'
import { isGenerated, type PromptKind } from '../core/plan.js'
import { LIMITS } from './field-limits.js'

export function conversationFields() {
  return {
    turns: whole(2, LIMITS.turns)
      .meta({
        description:
          'Each of a round’s requests becomes a conversation of this many chat requests, sent one after another, each appending the previous answer and a new user message of turn-tokens tokens; concurrency is conversations in flight, requests conversations per round',
      })
      .optional(),
    'turn-tokens': whole(1, LIMITS.inputTokens)
      .meta({ description: 'Tokens of each new user message after the first turn (required with turns)' })
      .optional(),
    thinking: z
      .enum(['on', 'off'], { error: expected('must be on or off') })
      .meta({
        description:
          'Sends chat_template_kwargs.enable_thinking true (on) or false (off): the chat template’s thinking switch of Qwen3-family models; chat API only',
      })
      .optional(),
  }
}

/** The fields the checks read, as the scenario schema parsed them. */
interface ConversationInput {
  turns?: number
  'turn-tokens'?: number
  rate?: number
  'prefix-tokens'?: number
  prompts?: PromptKind
}

/** `turns` and `turn-tokens` together, and the keys a conversation cannot go with. */
export function conversationChecks(s: ConversationInput, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
  if (s.turns === undefined) {
    if (s['turn-tokens'] !== undefined)
      issue('turn-tokens', 'only with turns (the tokens of each later user message of a conversation)')
    return
  }
  if (s['turn-tokens'] === undefined)
    issue('turn-tokens', 'required with turns (the tokens of each new user message after the first)')
  if (s.rate !== undefined)
    issue(
      'rate',
      'a conversation sends its turns one after another: with turns give concurrency (conversations in flight), not rate',
    )
  if (s['prefix-tokens'] !== undefined)
    issue(
      'prefix-tokens',
      'with turns a conversation’s earlier turns are the prefix its next request shares: give turns or prefix-tokens, not both',
    )
  if (isGenerated(s.prompts))
    issue('prompts', `turns goes with prompts: synthetic (${s.prompts} prompts are fitted one by one before a round)`)
}
