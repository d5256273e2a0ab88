/**
 * What the Actions runner would read as workflow commands in a process's stdout, following its parser
 * (actions/runner, src/Runner.Common/ActionCommand.cs and ActionCommandManager): per line, `::name …::data`
 * when the line starts with `::` after leading whitespace, `##[name …]data` anywhere in the line, and
 * `::stop-commands::TOKEN` … `::TOKEN::` switching command processing off and on again.
 */
const COMMANDS = new Set([
  'add-mask',
  'add-matcher',
  'remove-matcher',
  'debug',
  'notice',
  'warning',
  'error',
  'group',
  'endgroup',
  'echo',
  'set-output',
  'set-env',
  'add-path',
  'save-state',
  'stop-commands',
  'internal-set-repo-path',
])

export interface ParsedCommand {
  line: number
  name: string
  data: string
}

export function runnerCommands(stdout: string): ParsedCommand[] {
  const found: ParsedCommand[] = []
  let stopToken: string | undefined
  stdout.split(/\r?\n/).forEach((raw, line) => {
    const text = raw.replace(/^\s+/, '')
    if (stopToken !== undefined) {
      if (text === `::${stopToken}::`) stopToken = undefined
      return
    }
    const v2 = /^::([^:\s]+)(?:\s[^:]*)?::(.*)$/.exec(text)
    if (v2 && COMMANDS.has(v2[1])) {
      if (v2[1] === 'stop-commands') stopToken = v2[2]
      else found.push({ line, name: v2[1], data: v2[2] })
      return
    }
    const at = raw.indexOf('##[')
    if (at >= 0) {
      const end = raw.indexOf(']', at)
      const name = end > 0 ? raw.slice(at + 3, end).split(' ')[0] : ''
      if (COMMANDS.has(name)) found.push({ line, name, data: raw.slice(end + 1) })
    }
  })
  return found
}
