/**
 * The pipeline logs through this port: the runner backs it with @actions/core
 * (annotations, collapsible groups), the CLI with the console.
 */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
  debug(message: string): void
  /** Runs `fn` inside a collapsible group (one per target in the Actions log). */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>
}

/** A logger that writes plain lines to a stream, used by the CLI and tests. */
export function consoleLogger(write: (line: string) => void = (line) => process.stderr.write(line + '\n'), verbose = false): Logger {
  return {
    info: (m) => write(m),
    warn: (m) => write(`warning: ${m}`),
    error: (m) => write(`error: ${m}`),
    debug: (m) => {
      if (verbose) write(`debug: ${m}`)
    },
    async group(name, fn) {
      write(`── ${name}`)
      return fn()
    },
  }
}

/** A logger that keeps every line, for tests. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const logger = consoleLogger((l) => lines.push(l), true)
  return Object.assign(logger, { lines })
}
