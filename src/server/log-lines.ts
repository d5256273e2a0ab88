/**
 * What an engine's log says, line by line: the port it says it listens on, and the line that best tells why it
 * failed. Both read untrusted text: every line is bounded before it is matched, and what is quoted is cut.
 */

/** Longest line looked at; engines print their whole config on one line, and a match needs only its start. */
const MAX_LINE_CHARS = 2000
/** Longest line quoted in an error. */
export const QUOTE_CHARS = 300

/**
 * The lines engines print once their HTTP socket listens, each with its URL:
 * llama.cpp's `llama-server` `server is listening on http://127.0.0.1:8080` (older builds add `- starting the main
 * loop`; tools/server/server.cpp of ggml-org/llama.cpp), uvicorn's `Uvicorn running on http://0.0.0.0:8000 (Press
 * CTRL+C to quit)` (uvicorn/server.py of encode/uvicorn; SGLang and trtllm-serve serve through uvicorn), and vLLM's
 * `Starting vLLM API server 0 on http://0.0.0.0:8000` (vllm/entrypoints/openai/api_server.py).
 */
const LISTENING =
  /\b(?:listening on|Uvicorn running on|Starting vLLM API server(?: \d+)? on)\s+https?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\b/

/** The port a log line says the engine listens on, if it says so. */
export function listeningPort(line: string): number | undefined {
  const match = LISTENING.exec(line.slice(0, MAX_LINE_CHARS))
  if (!match) return undefined
  const port = Number(match[1])
  return port > 0 && port < 65536 ? port : undefined
}

/**
 * The first of `lines` saying the engine listens on a port other than `port`, unless one says it listens on `port`
 * (a launch may start helpers on ports of their own beside the server the gate polls).
 */
export function elsewhereLine(lines: readonly string[], port: number): string | undefined {
  const ports = lines.map(listeningPort)
  if (ports.includes(port)) return undefined
  return lines.find((_, i) => ports[i] !== undefined)
}

/** A line naming a file that is not there: the C library's ENOENT text, Node's code, Python's exception. */
const MISSING_FILE =
  /No such file or directory|\bENOENT\b|FileNotFoundError|\b(?:file|path|model|directory)\b[^\n]{0,80}\b(?:does not exist|not found)\b/i
/**
 * The last line of a Python exception (`OSError: …`, `torch.OutOfMemoryError: …`): what a traceback comes to.
 * Log prefixes (`ERROR 05-01 12:00:00 [core.py:42]`, `(EngineCore pid=1)`) may stand before it.
 */
const PYTHON_EXCEPTION = /(?:^|\s)(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt):\s+\S/
/** Words of a line that reports a failure. */
const ERROR_SHAPED =
  /\b(?:error|errors|failed|failure|fatal|panic|abort(?:ed|ing)?|cannot|can't|unable to|out of memory|exception|segmentation fault|killed)\b/i
/** Lines that only announce what follows, or the end, and tell nothing themselves. */
const UNTELLING =
  /^\s*(?:Traceback \(most recent call last\):|The above exception was the direct cause|During handling of the above exception)/i

/** An error level before the message: llama.cpp's ` E `, Python logging's `ERROR`, glog's `E1201`, `FATAL`, `CRITICAL`. */
const ERROR_LEVEL = /(?:^|\s)(?:E|ERROR|FATAL|CRITICAL|E\d{4})(?:\s|:)/

function score(line: string): number {
  if (UNTELLING.test(line)) return 0
  const level = ERROR_LEVEL.test(line) ? 0.5 : 0
  if (MISSING_FILE.test(line)) return 3 + level
  if (PYTHON_EXCEPTION.test(line)) return 2 + level
  return ERROR_SHAPED.test(line) ? 1 + level : 0
}

/**
 * The most telling of `lines` (oldest first): a line naming a missing file, else a Python exception's line, else an
 * error-shaped line; the first of the best kind, since later ones are mostly its consequences ("exiting due to model
 * loading error" after the file that could not be opened). Undefined when no line looks like an error. Cut to QUOTE_CHARS.
 */
export function tellingLine(lines: readonly string[]): string | undefined {
  let best: string | undefined
  let bestScore = 0
  for (const raw of lines) {
    const line = raw.slice(0, MAX_LINE_CHARS).trim()
    const s = score(line)
    if (s > bestScore) {
      best = line
      bestScore = s
    }
  }
  return best === undefined ? undefined : cut(best)
}

/** A quoted line, cut to QUOTE_CHARS. */
export function cut(line: string): string {
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line
}
