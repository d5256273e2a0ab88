/**
 * Reading an engine's log: the port it says it listens on (the lines llama.cpp, uvicorn and vLLM print) and the
 * line that tells why it failed (a missing file before the error that follows from it, a Python exception's line).
 */
import { describe, expect, it } from 'vitest'
import { QUOTE_CHARS, elsewhereLine, listeningPort, tellingLine } from '../../src/server/log-lines.js'
import { withLogLines } from '../../src/server/start.js'

describe('listeningPort', () => {
  it.each<[string, number | undefined]>([
    // llama-server b10470 (../shared/engines/llama.cpp), as it prints it
    ['0.00.318.758 I srv  llama_server: listening on http://127.0.0.1:18432', 18432],
    // older llama-server builds
    ['main: server is listening on http://127.0.0.1:8080 - starting the main loop', 8080],
    ['INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)', 8000],
    ['INFO:     Uvicorn running on http://[::]:30000 (Press CTRL+C to quit)', 30000],
    [
      '(APIServer pid=460954) INFO 12-18 06:01:05 [api_server.py:1945] Starting vLLM API server 0 on http://0.0.0.0:8080',
      8080,
    ],
    ['INFO 03-27 23:19:15 api_server.py:958] Starting vLLM API server on http://0.0.0.0:8000', 8000],
    // no URL: not one of the engines' lines (the test fake says this on the right port)
    ['fake-engine: listening on 127.0.0.1:8000', undefined],
    ['GET http://127.0.0.1:8000/health 200', undefined],
    ['listening on http://127.0.0.1:0', undefined],
    ['listening on http://127.0.0.1:99999', undefined],
  ])('%s → %s', (line, port) => {
    expect(listeningPort(line)).toBe(port)
  })
})

describe('elsewhereLine', () => {
  const uvicorn = (port: number) => `INFO:     Uvicorn running on http://0.0.0.0:${port} (Press CTRL+C to quit)`
  it('names the first line on another port', () => {
    expect(elsewhereLine([uvicorn(8000), uvicorn(8001)], 41234)).toBe(uvicorn(8000))
  })
  it('says nothing when one line names the port polled (helpers may listen beside it)', () => {
    expect(elsewhereLine([uvicorn(8001), uvicorn(41234)], 41234)).toBeUndefined()
  })
  it('says nothing without a listening line', () => {
    expect(elsewhereLine([], 41234)).toBeUndefined()
  })
})

/** What llama-server b10470 prints for `-m /tmp/nope/missing.gguf` (../shared/engines/llama.cpp, run by hand). */
const LLAMA_MISSING_MODEL = [
  '0.00.016.433 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)',
  "0.00.016.801 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set",
  '0.00.016.830 W srv  llama_server: this can be a security risk (cross-origin attacks)',
  "0.00.010.822 I srv    load_model: loading model '/tmp/nope/missing.gguf'",
  "0.00.011.178 E gguf_init_from_file: failed to open GGUF file '/tmp/nope/missing.gguf' (No such file or directory)",
  '0.00.011.378 E llama_model_load: error loading model: llama_model_loader: failed to load model from /tmp/nope/missing.gguf',
  '0.00.011.599 E llama_model_load_from_file_impl: failed to load model',
  "0.00.011.666 E cmn  common_init_: failed to load model '/tmp/nope/missing.gguf'",
  "0.00.011.667 E srv    load_model: failed to load model, '/tmp/nope/missing.gguf'",
  '0.00.011.669 I srv    operator(): operator(): cleaning up before exit...',
  '0.00.029.804 E srv  llama_server: exiting due to model loading error',
]

const PYTHON_CRASH = [
  'INFO 05-01 12:00:00 [config.py:100] disable_log_stats=False, enable_prefix_caching=True',
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3/site-packages/vllm/engine/core.py", line 42, in run',
  '    raise ValueError(f"bad")',
  'ValueError: max_model_len 262144 is larger than the derived max_position_embeddings 32768',
  'ERROR 05-01 12:00:01 [core.py:400] EngineCore failed to start.',
]

describe('tellingLine', () => {
  it("picks llama.cpp's missing-file line over the exit line after it", () => {
    expect(tellingLine(LLAMA_MISSING_MODEL)).toBe(LLAMA_MISSING_MODEL[4])
  })

  it('among lines of one kind, the first: the cause before its consequences', () => {
    const withoutFile = LLAMA_MISSING_MODEL.filter((_, i) => i !== 4)
    expect(tellingLine(withoutFile)).toBe(LLAMA_MISSING_MODEL[5])
  })

  it("picks a Python exception's line over the traceback header and a later error", () => {
    expect(tellingLine(PYTHON_CRASH)).toBe(PYTHON_CRASH[4])
  })

  it('a Python FileNotFoundError is a missing file', () => {
    const line = "FileNotFoundError: [Errno 2] No such file or directory: '/models/qwen/config.json'"
    expect(tellingLine([...PYTHON_CRASH, line])).toBe(line)
  })

  it('an error-level line before an error word in an info line', () => {
    const lines = ['INFO loading: retry on error is on', 'E1201 12:00:00 cuda.cc:12] CUDA error: out of memory']
    expect(tellingLine(lines)).toBe(lines[1])
  })

  it('nothing when no line looks like an error', () => {
    expect(tellingLine(['loading', 'cleaning up before exit...'])).toBeUndefined()
  })

  it('cuts a long line', () => {
    const line = `error: ${'x'.repeat(5000)}`
    expect(tellingLine([line])).toBe(`${line.slice(0, QUOTE_CHARS)}…`)
  })
})

describe('withLogLines', () => {
  it('quotes the telling line, then the last', () => {
    expect(withLogLines('launch exited with code 1', LLAMA_MISSING_MODEL.join('\n'))).toBe(
      `launch exited with code 1; log says: ${LLAMA_MISSING_MODEL[4]}; last log line: ${LLAMA_MISSING_MODEL[10]}`,
    )
  })
  it('quotes the last line once when it is the telling one', () => {
    expect(withLogLines('m', 'loading\nfatal: CUDA error: no kernel image is available')).toBe(
      'm; last log line: fatal: CUDA error: no kernel image is available',
    )
  })
  it('says nothing of an empty log', () => {
    expect(withLogLines('m', '')).toBe('m')
  })
})
