/**
 * Ending the process once everything written has left it. Writes to a pipe are asynchronous in Node, so a
 * `process.exit()` right after a large write cuts the output (a CI step's stdout is a pipe). We wait until
 * stdout and stderr have flushed what they hold, then exit explicitly: a keep-alive socket or a timer left
 * by a dependency must not hold the step open.
 */
export async function exitWhenDrained(code?: number): Promise<never> {
  if (code !== undefined) process.exitCode = code
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))),
  )
  process.exit()
}
