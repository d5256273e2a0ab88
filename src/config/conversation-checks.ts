/**
 * Where a target meets a scenario with `turns` or `thinking`: both are chat-only (a conversation is a list of
 * chat messages; `chat_template_kwargs` is a chat completions field in vLLM's and SGLang's OpenAI servers), an
 * engine that another tool measures cannot send them, and `thinking` owns `chat_template_kwargs.enable_thinking`
 * of the request body, which the target's `request-body` may then not set.
 */
import type { EngineAdapter } from '../engines/types.js'
import type { ScenarioPlan, TargetPlan } from '../core/plan.js'
import type { Path, Problems } from './issues.js'

/** The chat-only keys a scenario sets, in the order an error names them. */
function chatKeys(s: ScenarioPlan): string[] {
  return [...(s.turns !== undefined ? ['turns'] : []), ...(s.thinking !== undefined ? ['thinking'] : [])]
}

/** The scenarios as the file names them (a sweep's points once, under the sweep's name). */
function named(scenarios: readonly ScenarioPlan[], pick: (s: ScenarioPlan) => boolean): Map<string, ScenarioPlan> {
  const out = new Map<string, ScenarioPlan>()
  for (const s of scenarios) if (pick(s)) out.set(s.sweep ?? s.id, s)
  return out
}

export function checkConversations(plan: TargetPlan, adapter: EngineAdapter, path: Path, problems: Problems): void {
  for (const [name, s] of named(plan.scenarios, (x) => chatKeys(x).length > 0)) {
    const keys = chatKeys(s).join(' and ')
    if (adapter.measuresItself) {
      problems.add(
        ['scenarios', name, chatKeys(s)[0]],
        `target ${plan.id} (engine ${adapter.name}) is measured by another tool, which cannot be told ${keys}; leave scenario "${name}" out of its scenarios`,
      )
    } else if (plan.settings.api !== 'chat') {
      problems.add(
        [...path, 'api'],
        `${plan.settings.api} cannot send scenario "${name}" (${keys}: chat messages and chat_template_kwargs exist only in the chat API); set api: chat for this target or leave "${name}" out of its scenarios`,
      )
    }
  }
  const thinking = [...named(plan.scenarios, (x) => x.thinking !== undefined).keys()]
  const kwargs = plan.settings.requestBody.chat_template_kwargs
  if (!thinking.length || kwargs === undefined) return
  const field = [...path, 'request-body', 'chat_template_kwargs']
  if (!kwargs || typeof kwargs !== 'object' || Array.isArray(kwargs))
    problems.add(
      field,
      `must be a mapping where scenario "${thinking[0]}" sets thinking (enable_thinking is added to it)`,
    )
  else if ('enable_thinking' in kwargs)
    problems.add(
      [...field, 'enable_thinking'],
      `clashes with scenario "${thinking[0]}"'s thinking, which sets enable_thinking itself; remove one of them`,
    )
}
