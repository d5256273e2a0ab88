/**
 * Text we did not write (engine versions, health bodies, log lines, error bodies, config values) must never
 * become a workflow command when it reaches the runner's stdout. The runner reads two syntaxes on every
 * output line (actions/runner, src/Runner.Common/ActionCommand.cs): `::name …::data` when the line, after
 * leading whitespace, starts with `::` (TryParseV2), and the older `##[name …]data` anywhere in a line
 * (TryParse). A zero-width space between the two characters of each opener breaks both: .NET's TrimStart does
 * not treat U+200B as whitespace, and neither `::` nor `##[` survives. Line breaks are kept: every line of the
 * text is made inert, so a multi-line log tail cannot start a command on its second line either.
 */

const ZWSP = '\u200b'

/** The same text with every `::` and `##[` broken by a zero-width space. */
export function inert(text: string): string {
  return text.replace(/:(?=:)/g, `:${ZWSP}`).replace(/#(?=#\[)/g, `#${ZWSP}`)
}
