/** A logger that keeps every line it is given, for tests that assert what a run said. */
import { consoleLogger, type Logger } from '../../src/core/log.js'

export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const logger = consoleLogger((l) => lines.push(l), true)
  return Object.assign(logger, { lines })
}
