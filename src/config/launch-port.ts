/**
 * A launch copied from an engine's README carries its port (`--port 8080`): with a url that uses `{port}` the engine
 * then listens on 8080 while the gate polls the port it picked, until `ready-timeout`. `--port` is the flag of
 * llama.cpp's `llama-server`, `vllm serve`, SGLang's `launch_server` and `trtllm-serve` alike. A launch that names no
 * port at all may read `PORT` from its environment (the launcher sets it), so only a literal port is refused.
 */
import type { Path, Problems } from './issues.js'
import type { TargetInput } from './schema.js'

const DEFAULT_URL = 'http://127.0.0.1:{port}'
const PORT_FLAG = /(?:^|\s)--port(?:=|\s+)(['"]?)(\d{1,5})\1(?=\s|$)/

/** The number a command line passes to `--port` (`--port 8080`, `--port=8080`), if it passes one. */
export function literalPort(command: string | readonly string[] | undefined): string | undefined {
  const text = command === undefined ? '' : typeof command === 'string' ? command : command.join(' ')
  const port = PORT_FLAG.exec(text)?.[2]
  return port !== undefined && Number(port) <= 65535 ? port : undefined
}

/** The launched command and its field: `launch`, or the container's `command`; undefined when nothing is launched. */
function launchedCommand(target: TargetInput): { field: string[]; command: string | readonly string[] } | undefined {
  if (target.launch !== undefined) return { field: ['launch'], command: target.launch }
  if (target.container?.command !== undefined)
    return { field: ['container', 'command'], command: target.container.command }
  return undefined
}

/** A launch that passes a literal `--port` other than the port the gate polls is a problem naming its field. */
export function checkLaunchPort(target: TargetInput, path: Path, problems: Problems): void {
  const launched = launchedCommand(target)
  if (!launched) return
  const text = typeof launched.command === 'string' ? launched.command : launched.command.join(' ')
  const literal = literalPort(text)
  if (literal === undefined || text.includes('{port}')) return
  const at = [...path, ...launched.field]
  if (target.port !== undefined) {
    if (Number(literal) !== target.port)
      problems.add(
        at,
        `passes --port ${literal} but port is ${target.port}: the engine would listen on ${literal}, a port the gate never polls; write --port {port}`,
      )
    return
  }
  const url = target.url ?? DEFAULT_URL
  if (!url.includes('{port}')) return
  problems.add(
    at,
    `passes --port ${literal} and no {port} while url ${url} uses {port}: the engine would listen on ${literal}, a port the gate never polls; write --port {port} (or set port: ${literal})`,
  )
}
