import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { getJson, httpPorts, postJson } from '../../src/engines/http.js'
import { pickFreePort } from '../../src/server/ports.js'
import { timedInLoop } from '../helpers/lag-trace.js'

const servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler)
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('httpPorts', () => {
  const ports = httpPorts()

  it('answers status 0 when the connection is refused', async () => {
    const port = await pickFreePort()
    expect(await ports.get(`http://127.0.0.1:${port}/health`, 1000)).toEqual({ status: 0, body: 'connection refused' })
  })

  it('answers status 0 once the timeout passes on a server that never replies', async () => {
    const base = await serve(() => undefined)
    const timed = await timedInLoop(() => ports.get(`${base}/health`, 200))
    const answer = timed.value
    expect(answer.status).toBe(0)
    expect(answer.body).toContain('200 ms')
    expect(timed.elapsed).toBeGreaterThanOrEqual(190)
    expect(timed.elapsed).toBeLessThanOrEqual(timed.bound(200))
    servers.forEach((s) => s.closeAllConnections())
  })

  it('returns status and body of any answer, 503 included', async () => {
    const base = await serve((_req, res) => res.writeHead(503).end('{"error":{"message":"Loading model"}}'))
    expect(await ports.get(`${base}/health`, 1000)).toEqual({
      status: 503,
      body: '{"error":{"message":"Loading model"}}',
    })
  })

  it('POSTs the body as JSON', async () => {
    const base = await serve((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: req.headers['content-type'], got: JSON.parse(body) })),
      )
    })
    const answer = await ports.post(`${base}/tokenize`, { content: 'a b' }, 1000)
    expect(JSON.parse(answer.body)).toEqual({ type: 'application/json', got: { content: 'a b' } })
  })
})

describe('getJson / postJson', () => {
  it('parse 2xx JSON and give undefined for errors and non-JSON', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/ok') return res.writeHead(200).end('{"version":"1"}')
      if (req.url === '/text') return res.writeHead(200).end('not json')
      res.writeHead(404).end('{"error":"no"}')
    })
    const ports = httpPorts()
    expect(await getJson(ports, `${base}/ok`)).toEqual({ version: '1' })
    expect(await getJson(ports, `${base}/text`)).toBeUndefined()
    expect(await getJson(ports, `${base}/missing`)).toBeUndefined()
    expect(await postJson(ports, `${base}/ok`, {})).toEqual({ version: '1' })
  })
})
