/**
 * The short reports of runs that measured nothing: an unusable matrix file, a dry run, a run that could not
 * start. They go to the job summary like any report, so they stay under its 1 MiB as well: long problem lists
 * and plans are cut, saying how much was left out and where the rest is.
 */
import { code, codeBlock, escapeText } from '../escape.js'
import { plural } from '../../core/format.js'

/** Problems listed before the rest is counted; a file with more has one mistake repeated by a matrix. */
const MAX_PROBLEMS = 200
/** Characters of a plan or error kept in a notice: well under the summary's 1 MiB with the markup around them. */
const MAX_TEXT = 512 * 1024

export function configErrorNotice(configPath: string, problems: readonly string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS).map((p) => `- ${escapeText(p)}`)
  if (problems.length > MAX_PROBLEMS)
    shown.push(`- … and ${plural(problems.length - MAX_PROBLEMS, 'more problem')} (all are in the step log)`)
  return `## llm-bench-gate: configuration error\n\n${code(configPath)} could not be used:\n\n${shown.join('\n')}\n`
}

export function dryRunNotice(mode: string, plan: string): string {
  return `## llm-bench-gate: dry run\n\nMode ${code(mode)}; nothing was launched.\n\n${codeBlock(cut(plan, 'the whole plan is in the step log'))}\n`
}

export function couldNotRunNotice(message: string): string {
  return `## llm-bench-gate could not run\n\n${codeBlock(cut(message, 'the whole message is in the step log'))}\n`
}

function cut(text: string, where: string): string {
  return text.length <= MAX_TEXT
    ? text
    : `${text.slice(0, MAX_TEXT)}\n… ${plural(text.length - MAX_TEXT, 'more character')} left out: ${where}`
}
