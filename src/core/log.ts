/**
 * The pipeline logs through this port: the runner backs it with @actions/core
 * (annotations, collapsible groups), the CLI with the console.
 */
import { redact } from './redact.js'
import { inert } from './workflow-text.js'

export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
  debug(message: string): void
  /** Runs `fn` inside a collapsible group (one per target in the Actions log). */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>
}

/**
 * A line as it may be printed where the Actions runner reads it: secrets redacted, and no workflow command
 * made of text we did not write. Every logger runs every message through this.
 */
export function printable(message: string): string {
  return inert(redact(message))
}

/** A logger that writes plain lines to a stream, used by the CLI and tests. */
export function consoleLogger(
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  verbose = false,
): Logger {
  return {
    info: (m) => write(printable(m)),
    warn: (m) => write(`warning: ${printable(m)}`),
    error: (m) => write(`error: ${printable(m)}`),
    debug: (m) => {
      if (verbose) write(`debug: ${printable(m)}`)
    },
    async group(name, fn) {
      write(`── ${printable(name)}`)
      return fn()
    },
  }
}
