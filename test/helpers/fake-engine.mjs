#!/usr/bin/env node
/**
 * fake-engine: a loopback stand-in for an inference engine, run as a child process (plain
 * JS, no build step) by the server, engine and end-to-end tests, typically as a `launch:`
 * command. It speaks one engine's dialect: readiness, stream chunk shapes, version/info
 * endpoints, /tokenize and /metrics. Words are tokens: a prompt of N words is N tokens and
 * every generated token is one word.
 *
 *   node test/helpers/fake-engine.mjs --dialect vllm|sglang|llamacpp|openai --port N [options]
 *
 * Flags (stable; tests and launch commands depend on them):
 *   --dialect D            vllm | sglang | llamacpp | openai (required)
 *   --port N               port to listen on (default: $PORT)
 *   --host H               default 127.0.0.1
 *   --model NAME           served model id (default fake-model)
 *   --engine-version V     version reported by /version, /get_server_info, /props build_info
 *   --load-ms MS           simulated model load time (default 0). vllm does not listen until loaded;
 *                          sglang/llamacpp listen at once and answer 503 while loading; openai
 *                          answers 503 on /v1/models while loading
 *   --never-ready          stay loading forever
 *   --loading-503          vllm only: listen at once and answer 503 while loading (vLLM behind a proxy)
 *   --ttft-ms X            delay from request to the first token chunk (default 5)
 *   --itl-ms Y             delay between token chunks (default 2)
 *   --tokens-per-chunk K   tokens carried by each chunk (default 1)
 *   --exit-after-ms MS     print a fatal line to stderr and exit after MS ...
 *   --exit-code C          ... with code C (default 1)
 *   --fail-every M         every M-th generation request answers HTTP 500
 *   --cut-every K          every K-th generation request has its stream cut half-way
 *   --fork-grandchild      start `sleep 3000` in the same process group and print
 *                          "fake-engine: grandchild pid <pid>"
 *   --ignore-sigterm       print "fake-engine: ignoring SIGTERM" and keep running on SIGTERM
 *   --record-env NAME=PATH write the value of the environment variable NAME (or "<unset>") to PATH at start
 *   --preempt-every N      vllm: every N-th generation request counts one preemption on /metrics
 *                          (`vllm:num_preemptions_total`, 0 without this flag)
 *   --spec-k K             speculative decoding with K draft tokens per step ...
 *   --spec-accepted A      ... of which A are accepted (each step emits A + 1 tokens).
 *                          Per request of n tokens: steps = ceil(n / (A + 1)), accepted = n - steps,
 *                          draft tokens = steps * K. vllm: /metrics counters; sglang:
 *                          avg_spec_accept_length = Σn / Σsteps; llamacpp: timings.draft_n*.
 *   --metrics-extra PATH   vllm: the file's lines are served at the end of /metrics, `{requests}` in them
 *                          replaced by the generation requests so far and `{requests*N}` by N times that
 *   --metrics-pad-bytes N  vllm: about N bytes of histogram lines of a series no adapter reads, served in
 *                          /metrics after `vllm:request_success_total` and before `vllm:num_preemptions_total`;
 *                          built once, so serving it costs the fake no parsing
 *
 * Every dialect serves POST /tokenize: llamacpp `{content}` → `{tokens}`, the others
 * `{model, prompt | messages}` → `{count, max_model_len, tokens}`.
 * Test-only endpoint: GET /fake/last-request returns the JSON body of the last generation request.
 * Lines printed: "fake-engine: loading model (<ms> ms)", "fake-engine: ready on <host>:<port>".
 */
import http from 'node:http'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values: flags } = parseArgs({
  options: {
    dialect: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    model: { type: 'string', default: 'fake-model' },
    'engine-version': { type: 'string' },
    'load-ms': { type: 'string', default: '0' },
    'never-ready': { type: 'boolean', default: false },
    'loading-503': { type: 'boolean', default: false },
    'ttft-ms': { type: 'string', default: '5' },
    'itl-ms': { type: 'string', default: '2' },
    'tokens-per-chunk': { type: 'string', default: '1' },
    'exit-after-ms': { type: 'string' },
    'exit-code': { type: 'string', default: '1' },
    'fail-every': { type: 'string' },
    'cut-every': { type: 'string' },
    'fork-grandchild': { type: 'boolean', default: false },
    'ignore-sigterm': { type: 'boolean', default: false },
    'record-env': { type: 'string' },
    'preempt-every': { type: 'string' },
    'spec-k': { type: 'string' },
    'spec-accepted': { type: 'string' },
    'metrics-extra': { type: 'string' },
    'metrics-pad-bytes': { type: 'string' },
  },
  strict: true,
})

const DIALECTS = ['vllm', 'sglang', 'llamacpp', 'openai']
const dialect = flags.dialect
if (!DIALECTS.includes(dialect)) {
  console.error(`fake-engine: --dialect must be one of ${DIALECTS.join(', ')}`)
  process.exit(2)
}
const num = (name, fallback) => (flags[name] === undefined ? fallback : Number(flags[name]))
const port = Number(flags.port ?? process.env.PORT)
if (!Number.isInteger(port) || port <= 0) {
  console.error('fake-engine: --port (or $PORT) is required')
  process.exit(2)
}
const host = flags.host
const model = flags.model
const loadMs = num('load-ms', 0)
const ttftMs = num('ttft-ms', 5)
const itlMs = num('itl-ms', 2)
const perChunk = Math.max(1, num('tokens-per-chunk', 1))
const failEvery = num('fail-every', 0)
const cutEvery = num('cut-every', 0)
const preemptEvery = num('preempt-every', 0)
const specK = num('spec-k', 0)
const specAccepted = num('spec-accepted', 0)
const metricsExtra = flags['metrics-extra'] ? readFileSync(flags['metrics-extra'], 'utf8') : ''
const metricsPad = padLines(num('metrics-pad-bytes', 0))
const VERSIONS = { vllm: '0.11.0+fake', sglang: '0.5.3+fake', llamacpp: 'b6767-fake0000', openai: '1.0.0+fake' }
const version = flags['engine-version'] ?? VERSIONS[dialect]
const started = Date.now()

const state = {
  loaded: false,
  requests: 0,
  lastRequest: null,
  drafts: 0,
  draftTokens: 0,
  accepted: 0,
  specTokens: 0,
  specSteps: 0,
  preemptions: 0,
}
const log = (line) => process.stdout.write(`fake-engine: ${line}\n`)

if (flags['record-env']) {
  const [name, ...path] = flags['record-env'].split('=')
  writeFileSync(path.join('='), process.env[name] ?? '<unset>')
}

// ---- process behaviour -------------------------------------------------------------------

process.on('SIGTERM', () => {
  if (flags['ignore-sigterm']) return log('ignoring SIGTERM')
  log('SIGTERM, shutting down')
  process.exit(0)
})
if (flags['fork-grandchild']) {
  const child = spawn('sleep', ['3000'], { stdio: 'ignore' })
  child.unref()
  log(`grandchild pid ${child.pid}`)
}
if (flags['exit-after-ms'] !== undefined) {
  setTimeout(
    () => {
      const code = num('exit-code', 1)
      process.stderr.write(`fake-engine: fatal: simulated crash, exiting with code ${code}\n`)
      process.exit(code)
    },
    num('exit-after-ms', 0),
  )
}

// ---- tokens --------------------------------------------------------------------------------

const words = (text) => (typeof text === 'string' && text.trim() ? text.trim().split(/\s+/).length : 0)
function promptTokens(body) {
  if (Array.isArray(body.messages)) {
    return body.messages.reduce((n, m) => {
      if (typeof m.content === 'string') return n + words(m.content)
      if (Array.isArray(m.content)) return n + m.content.reduce((k, part) => k + words(part?.text), 0)
      return n
    }, 0)
  }
  return Array.isArray(body.prompt) ? body.prompt.reduce((n, p) => n + words(p), 0) : words(body.prompt)
}
const tokenIds = (n) => Array.from({ length: n }, (_, i) => 100 + i)

function spec(n) {
  if (!specK) return undefined
  const steps = Math.ceil(n / (specAccepted + 1))
  return { steps, accepted: n - steps, draftTokens: steps * specK }
}

// ---- chunk shapes per dialect ----------------------------------------------------------------

const created = Math.floor(started / 1000)
const hex = () => Math.random().toString(16).slice(2, 14).padEnd(12, '0')

function makeShapes(api, id, usage, timings, finishReason) {
  const chat = api === 'chat'
  const object = chat ? 'chat.completion.chunk' : 'text_completion'
  const base = { id, object, created, model }
  const extra = dialect === 'llamacpp' ? { system_fingerprint: version } : {}
  const sglangNulls = dialect === 'sglang' ? { usage: null } : {}
  const choice = (fields) => {
    if (dialect === 'sglang')
      return { index: 0, ...fields, logprobs: null, finish_reason: fields.finish_reason ?? null, matched_stop: null }
    if (dialect === 'llamacpp') return { finish_reason: null, index: 0, ...fields }
    return { index: 0, ...fields, logprobs: null, finish_reason: fields.finish_reason ?? null }
  }
  const delta = (d) =>
    dialect === 'sglang' ? { role: null, content: null, reasoning_content: null, tool_calls: null, ...d } : d
  const chunk = (choices, more = {}) => ({ ...base, choices, ...extra, ...sglangNulls, ...more })
  return {
    /** Events written together before the first token (chat role chunk). */
    role: () =>
      chat
        ? [chunk([choice({ delta: delta({ role: 'assistant', content: dialect === 'llamacpp' ? null : '' }) })])]
        : [],
    token: (text, last) => {
      // vLLM and the generic server put finish_reason on the last token chunk.
      const finish = last && (dialect === 'vllm' || dialect === 'openai') ? { finish_reason: finishReason } : {}
      if (!chat) return chunk([choice({ text, ...(dialect === 'vllm' ? { stop_reason: null } : {}), ...finish })])
      return chunk([choice({ delta: delta({ content: text }), ...finish })])
    },
    /** Events after the last token: finish chunk and/or usage chunk, per dialect. */
    tail: (includeUsage) => {
      const usageChunk = () => chunk([], { usage })
      if (dialect === 'llamacpp') {
        if (!chat)
          return [chunk([choice({ text: '', logprobs: null, finish_reason: finishReason })], { usage, timings })]
        const finish = chunk([choice({ finish_reason: finishReason, delta: {} })])
        return includeUsage ? [finish, chunk([], { usage, timings })] : [{ ...finish, timings }]
      }
      const out = []
      if (dialect === 'sglang')
        out.push(
          chunk([
            choice(
              chat ? { delta: delta({}), finish_reason: finishReason } : { text: '', finish_reason: finishReason },
            ),
          ]),
        )
      if (includeUsage) out.push(usageChunk())
      return out
    },
  }
}

/** Tokens a reply that honours end-of-sequence has before it stops. */
const EOS_AFTER = 4

// ---- HTTP ------------------------------------------------------------------------------------

// Node's timers run on a millisecond clock and may fire up to 1 ms early: a wake-up before the deadline waits
// again for the rest, so no token is ever sent before its schedule (tests bound TTFT from below).
const sleepUntil = async (deadline) => {
  for (let left = deadline - performance.now(); left > 0; left = deadline - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, left))
  }
}
const sleep = (ms) => sleepUntil(performance.now() + ms)
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')

function sendJson(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
function sendText(res, status, text, type = 'text/plain') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
function readBody(req) {
  return new Promise((resolve) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'))
      } catch {
        resolve(undefined)
      }
    })
  })
}

function loadingAnswer(res) {
  if (dialect === 'llamacpp')
    return sendJson(res, 503, { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } })
  return sendText(res, 503, '')
}

async function generate(req, res, api) {
  const body = await readBody(req)
  if (!body)
    return sendJson(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error', code: 400 } })
  state.lastRequest = body
  const number = ++state.requests
  if (preemptEvery && number % preemptEvery === 0) state.preemptions++
  if (failEvery && number % failEvery === 0) {
    return sendJson(res, 500, {
      error: { message: `simulated failure of request ${number}`, type: 'server_error', code: 500 },
    })
  }
  const requested = Math.max(0, Number(body.max_tokens ?? body.max_completion_tokens ?? 16))
  // A request that honours end-of-sequence (`ignore_eos: false`) gets a short reply that stops, as a real engine's does.
  const stops = body.ignore_eos === false && requested > EOS_AFTER
  const n = stops ? EOS_AFTER : requested
  const finishReason = stops ? 'stop' : 'length'
  const prompt = promptTokens(body)
  const sp = spec(n)
  const usage = { prompt_tokens: prompt, total_tokens: prompt + n, completion_tokens: n }
  const timings = {
    cache_n: 0,
    prompt_n: prompt,
    prompt_ms: ttftMs,
    prompt_per_token_ms: prompt ? ttftMs / prompt : 0,
    prompt_per_second: ttftMs ? (1000 * prompt) / ttftMs : 0,
    predicted_n: n,
    predicted_ms: itlMs * Math.max(0, Math.ceil(n / perChunk) - 1),
    predicted_per_token_ms: n ? (itlMs * Math.max(0, Math.ceil(n / perChunk) - 1)) / n : 0,
    predicted_per_second: itlMs && n > 1 ? (1000 * n) / (itlMs * Math.ceil(n / perChunk)) : 0,
    ...(sp ? { draft_n: sp.draftTokens, draft_n_accepted: sp.accepted } : {}),
  }
  const id = dialect === 'sglang' ? hex() + hex() : `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${hex()}`
  const shapes = makeShapes(api, id, usage, timings, finishReason)
  const t0 = performance.now()
  const texts = []
  for (let i = 0; i < n; i += perChunk)
    texts.push(
      tokenIds(Math.min(perChunk, n - i))
        .map((t, j) => ` w${i + j}`)
        .join(''),
    )

  const account = () => {
    if (!sp) return
    state.drafts += sp.steps
    state.draftTokens += sp.draftTokens
    state.accepted += sp.accepted
    state.specTokens += n
    state.specSteps += sp.steps
  }
  if (!body.stream) {
    await sleep(ttftMs + itlMs * Math.max(0, texts.length - 1))
    account()
    const text = texts.join('')
    const choice =
      api === 'chat'
        ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }
        : { index: 0, text, finish_reason: finishReason }
    return sendJson(res, 200, {
      id,
      object: api === 'chat' ? 'chat.completion' : 'text_completion',
      created,
      model,
      choices: [choice],
      usage,
      ...(dialect === 'llamacpp' ? { timings } : {}),
    })
  }

  let closed = false
  res.on('close', () => (closed = true))
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const cut = cutEvery && number % cutEvery === 0 ? Math.max(1, Math.floor(texts.length / 2)) : -1
  for (let i = 0; i < texts.length; i++) {
    await sleepUntil(t0 + ttftMs + i * itlMs)
    if (closed) return
    if (i === cut) {
      // Node's http corks a response's writes until the next tick, and a token whose time has passed (a late
      // wake-up, or --itl-ms 0) is written without a timer in between: let the writes before the cut reach the
      // socket, so the client sees the half the schedule sent, then cut.
      await new Promise((resolve) => setImmediate(resolve))
      return res.socket?.destroy()
    }
    const events =
      i === 0
        ? [...shapes.role(), shapes.token(texts[i], i === texts.length - 1)]
        : [shapes.token(texts[i], i === texts.length - 1)]
    res.write(sse(events))
  }
  if (texts.length === 0) await sleep(ttftMs)
  account()
  res.end(sse(shapes.tail(body.stream_options?.include_usage === true)) + 'data: [DONE]\n\n')
}

/** About `bytes` of bucket lines of a histogram no adapter reads, as one Buffer. */
function padLines(bytes) {
  const lines = ['# TYPE vllm:fake_padding_seconds histogram']
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `vllm:fake_padding_seconds_bucket{engine="0",le="${i}.0",model_name="fake-model",slot="${i % 97}"} ${i}.0`
    lines.push(line)
    size += line.length + 1
  }
  return bytes > 0 ? Buffer.from(lines.join('\n') + '\n') : undefined
}

const withRequests = (text) =>
  text.replace(/\{requests(?:\*([0-9.eE+-]+))?\}/g, (_, times) => String(state.requests * Number(times ?? 1)))

/** /metrics in parts: the head, the padding (when asked for), the tail with the extra lines. */
function sendMetrics(res) {
  const [head, tail] = metricsText().map((t) => Buffer.from(t))
  const parts = metricsPad ? [head, metricsPad, tail] : [head, tail]
  res.on('error', () => undefined)
  res.writeHead(200, {
    'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    'content-length': parts.reduce((n, p) => n + p.length, 0),
  })
  for (const part of parts) res.write(part)
  res.end()
}

function metricsText() {
  const labels = `{engine="0",model_name="${model}"}`
  const lines = [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${labels} 0.0`,
    '# HELP vllm:request_success_total Count of successfully processed requests.',
    '# TYPE vllm:request_success_total counter',
    `vllm:request_success_total{engine="0",finished_reason="length",model_name="${model}"} ${state.requests}.0`,
    '# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.',
    '# TYPE vllm:e2e_request_latency_seconds histogram',
    `vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0",model_name="${model}"} ${state.requests}.0`,
    `vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="${model}"} ${state.requests}.0`,
  ]
  const head = lines.join('\n') + '\n'
  lines.length = 0
  lines.push(
    '# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.',
    '# TYPE vllm:num_preemptions_total counter',
    `vllm:num_preemptions_total${labels} ${state.preemptions}.0`,
  )
  if (specK) {
    for (const [name, value] of [
      ['num_drafts', state.drafts],
      ['num_draft_tokens', state.draftTokens],
      ['num_accepted_tokens', state.accepted],
    ]) {
      lines.push(
        `# HELP vllm:spec_decode_${name}_total Speculative decoding counter.`,
        `# TYPE vllm:spec_decode_${name}_total counter`,
      )
      lines.push(
        `vllm:spec_decode_${name}_total${labels} ${value}.0`,
        `vllm:spec_decode_${name}_created${labels} ${created}.0`,
      )
    }
  }
  return [head, lines.join('\n') + '\n' + withRequests(metricsExtra)]
}

function serverInfo() {
  return {
    version,
    model_path: `/models/${model}`,
    served_model_name: model,
    tp_size: 1,
    dp_size: 1,
    mem_fraction_static: 0.8,
    speculative_algorithm: specK ? 'EAGLE' : null,
    speculative_num_steps: specK ? specK : null,
    speculative_num_draft_tokens: specK ? specK + 1 : null,
    internal_states: [
      {
        last_gen_throughput: 42.0,
        ...(specK ? { avg_spec_accept_length: state.specSteps ? state.specTokens / state.specSteps : 0 } : {}),
      },
    ],
  }
}

function props() {
  return {
    default_generation_settings: {
      id: 0,
      n_ctx: 8192,
      speculative: specK > 0,
      is_processing: false,
      params: {
        n_predict: -1,
        temperature: 0.8,
        'speculative.n_max': specK || 16,
        'speculative.n_min': 0,
        'speculative.p_min': 0.75,
      },
    },
    total_slots: 4,
    model_path: `/models/${model}.gguf`,
    chat_template: '',
    modalities: { vision: false, audio: false },
    build_info: version,
  }
}

const models = () => ({
  object: 'list',
  data: [{ id: model, object: 'model', created, owned_by: dialect, root: `/models/${model}`, max_model_len: 8192 }],
})

async function tokenize(req, res) {
  const body = (await readBody(req)) ?? {}
  if (dialect === 'llamacpp') return sendJson(res, 200, { tokens: tokenIds(words(body.content)) })
  const count = promptTokens(body)
  return sendJson(res, 200, { count, max_model_len: 8192, tokens: tokenIds(count) })
}

const ROUTES = {
  'GET /v1/models': (req, res) => sendJson(res, 200, models()),
  'POST /tokenize': tokenize,
  'POST /v1/completions': (req, res) => generate(req, res, 'completions'),
  'POST /v1/chat/completions': (req, res) => generate(req, res, 'chat'),
  'GET /fake/last-request': (req, res) => sendJson(res, 200, state.lastRequest ?? {}),
  ...(dialect === 'vllm'
    ? {
        'GET /health': (req, res) => sendText(res, 200, ''),
        'GET /version': (req, res) => sendJson(res, 200, { version }),
        'GET /metrics': (req, res) => sendMetrics(res),
      }
    : {}),
  ...(dialect === 'sglang'
    ? {
        'GET /health': (req, res) => sendText(res, 200, ''),
        'GET /health_generate': (req, res) => sendText(res, 200, ''),
        'GET /get_server_info': (req, res) => sendJson(res, 200, serverInfo()),
        'GET /server_info': (req, res) => sendJson(res, 200, serverInfo()),
      }
    : {}),
  ...(dialect === 'llamacpp'
    ? {
        'GET /health': (req, res) => sendJson(res, 200, { status: 'ok' }),
        'GET /props': (req, res) => sendJson(res, 200, props()),
      }
    : {}),
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0]
  if (!state.loaded && (dialect !== 'vllm' || flags['loading-503'])) return loadingAnswer(res)
  const route = ROUTES[`${req.method} ${path}`]
  if (!route)
    return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found', code: 404 } })
  Promise.resolve(route(req, res)).catch((error) => {
    if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error', code: 500 } })
    else res.destroy()
  })
})
server.keepAliveTimeout = 5000

function markLoaded() {
  state.loaded = true
  log(`ready on ${host}:${port}`)
}

log(`dialect ${dialect}, pid ${process.pid}, loading model (${flags['never-ready'] ? 'forever' : `${loadMs} ms`})`)
if (dialect === 'vllm' && !flags['loading-503']) {
  // vLLM binds without listening while it loads: clients see connection refused.
  if (!flags['never-ready']) setTimeout(() => server.listen(port, host, markLoaded), loadMs)
  else setInterval(() => undefined, 60_000)
} else {
  server.listen(port, host, () => {
    log(`listening on ${host}:${port}`)
    if (!flags['never-ready']) setTimeout(markLoaded, loadMs)
  })
}
