/**
 * The small error taxonomy: one class per failure a caller handles differently (a bad config stops
 * the run before launch, a start failure turns a target's cells into errors, a request error is
 * counted in its round). Messages name the thing that failed: `vllm-fp8: not ready after 20m`.
 */

/** Bad matrix file or inputs: every problem, each as `path: what is wrong`. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? problems[0]
        : `${problems.length} problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    )
    this.name = 'ConfigError'
  }
}

/** The matrix file itself cannot be read (a mistyped path): the run writes nothing, not even its results folder. */
export class UnreadableConfigError extends ConfigError {
  constructor(problem: string) {
    super([problem])
    this.name = 'UnreadableConfigError'
  }
}

/** A target could not be brought up: it exited, timed out or was aborted before it was ready. */
export class StartError extends Error {
  constructor(
    readonly target: string,
    readonly kind: 'exit' | 'timeout' | 'aborted' | 'smoke' | 'spawn' | 'elsewhere',
    message: string,
    readonly exitCode: number | null = null,
    readonly logTail = '',
    /** The launch command as run (port filled), once it was. */
    readonly launch?: string,
  ) {
    super(`${target}: ${message}`)
    this.name = 'StartError'
  }
}

/** One request failed: HTTP status, in-band error event, malformed stream, cut connection, timeout. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'http' | 'stream-error' | 'malformed' | 'cut' | 'timeout' | 'aborted' | 'network',
    readonly status?: number,
  ) {
    super(message)
    this.name = 'RequestError'
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
