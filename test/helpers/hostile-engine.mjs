// A loopback engine that misbehaves on purpose, for the hostile-input tests. Every text it returns carries
// workflow commands (`::…::`, `##[…]`) marked PWNED, so a test can tell engine text from the action's own.
// Usage: node hostile-engine.mjs --port N --mode loading|error|endless|flood
import { createServer } from 'node:http'

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split('--')
    .filter(Boolean)
    .map((a) => a.trim().split(/\s+/)),
)
const port = Number(args.port)
const mode = args.mode ?? 'error'
const HOSTILE =
  'b1\n::add-mask::PWNED-a\n::stop-commands::PWNEDTOKEN\n::warning title=PWNED::PWNED-b\n##[set-output name=verdict]PWNED-c'

// What the engine prints to its log: the action shows log lines in progress lines and errors.
console.log('::add-mask::PWNED-log')
console.log('loading ##[set-output name=verdict]PWNED-log2')
console.log('::stop-commands::PWNEDLOG')

const json = (res, status, body) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', () => {
    if (req.url === '/health')
      return mode === 'loading' ? res.writeHead(503).end(`Loading ${HOSTILE}`) : res.writeHead(200).end()
    if (req.url === '/get_server_info') return json(res, 200, { version: HOSTILE, model_path: `/m ${HOSTILE}` })
    if (req.url === '/v1/models') return json(res, 200, { data: [{ id: 'hostile' }] })
    const request = body ? JSON.parse(body) : {}
    if (mode === 'error')
      return res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`::error::PWNED-body ##[add-mask]PWNED-body\n${HOSTILE}`)
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const chunk = (text) => `data: ${JSON.stringify({ choices: [{ index: 0, text }], usage: null })}\n\n`
    if (request.max_tokens === 1) return res.end(chunk('x') + 'data: [DONE]\n\n')
    // Endless: tokens forever, every one refreshing an inter-token timeout. Flood: megabyte events forever.
    const piece = mode === 'flood' ? chunk('y'.repeat(1 << 20)) : chunk('tok ')
    const pump = () => {
      if (res.destroyed) return
      if (mode === 'flood') while (res.write(piece));
      else res.write(piece)
      setTimeout(pump, mode === 'flood' ? 0 : 2)
    }
    pump()
  })
}).listen(port, '127.0.0.1')
