/** The short reports of runs that measured nothing: an unusable matrix file, a dry run, a run that could not start. */
import { code, codeBlock, escapeText } from './escape.js'

export function configErrorNotice(configPath: string, problems: readonly string[]): string {
  const list = problems.map((p) => `- ${escapeText(p)}`).join('\n')
  return `## llm-bench-gate: configuration error\n\n${code(configPath)} could not be used:\n\n${list}\n`
}

export function dryRunNotice(mode: string, plan: string): string {
  return `## llm-bench-gate: dry run\n\nMode ${code(mode)}; nothing was launched.\n\n${codeBlock(plan)}\n`
}

export function couldNotRunNotice(message: string): string {
  return `## llm-bench-gate could not run\n\n${codeBlock(message)}\n`
}
