/**
 * The bounded GitHub port with octokit's own `request` (as the runner builds it) against loopback servers: one
 * that never answers, and one that answers every request late. A request ends at its bound or at the run's
 * signal, the abort reaches the socket, nothing is sent once cancelled, and an operation ends at its bound
 * however many requests it makes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getOctokit } from '@actions/github'
import { timedInLoop } from '../helpers/lag-trace.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ApiAbortError,
  boundedGitHub,
  boundedRequest,
  httpStatus,
  type GitHubRequest,
} from '../../src/core/github-port.js'

interface Loopback {
  request: GitHubRequest
  /** Requests that arrived, and how many of their sockets closed. */
  arrived: number
  closed: number
}

let servers: Server[] = []
afterEach(async () => {
  for (const server of servers) server.closeAllConnections()
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))))
  servers = []
})

/** A server that answers after `delayMs` (never, when undefined) with `{}`. */
async function loopback(delayMs?: number): Promise<Loopback> {
  const state = { arrived: 0, closed: 0 }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.arrived++
    req.socket.once('close', () => state.closed++)
    if (delayMs === undefined) return
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), delayMs)
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    request: getOctokit('t', { baseUrl: url }).request as never,
    get arrived() {
      return state.arrived
    },
    get closed() {
      return state.closed
    },
  }
}

const ROUTE = 'GET /repos/{owner}/{repo}/pages'
const repo = { owner: 'o', repo: 'r' }
const until = async (check: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await new Promise((r) => setTimeout(r, 10))
}

describe('boundedRequest', () => {
  it('a request with no answer ends at its bound, names the route and the bound, and closes the socket', async () => {
    const gh = await loopback()
    const timed = await timedInLoop(() => boundedRequest(gh.request, 300)(ROUTE, repo).catch((e: unknown) => e))
    const { value: error, elapsed: took } = timed
    expect(error).toBeInstanceOf(ApiAbortError)
    expect((error as Error).message).toBe(`${ROUTE}: no answer within 300ms`)
    // Not an HTTP answer: octokit would call the aborted fetch a 500.
    expect(httpStatus(error)).toBeUndefined()
    // A timer may fire up to 1 ms early on the loop's whole-millisecond clock.
    expect(took).toBeGreaterThanOrEqual(299)
    expect(took).toBeLessThanOrEqual(timed.bound(300))
    expect(gh.arrived).toBe(1)
    await until(() => gh.closed === 1)
    expect(gh.closed).toBe(1)
  })

  it("the run's signal ends a request in flight at once, with the signal's reason", async () => {
    const gh = await loopback()
    const cancel = new AbortController()
    const pending = boundedRequest(gh.request, 30_000, cancel.signal)(ROUTE, repo).catch((e: unknown) => e)
    await until(() => gh.arrived === 1)
    const timed = await timedInLoop(() => {
      cancel.abort(new Error('cancelled by SIGTERM'))
      return pending
    })
    const error = timed.value
    // At once: nothing is due, so only the loop's spells and a few turns of the abort's own path (well under a
    // millisecond each) stand between the abort and the rejection; 10 turns of 1 ms for that path.
    expect(timed.elapsed).toBeLessThanOrEqual(timed.bound(0, 10))
    expect((error as Error).message).toBe(`${ROUTE}: cancelled by SIGTERM`)
    await until(() => gh.closed === 1)
    expect(gh.closed).toBe(1)
  })

  it('once the signal has fired nothing is sent', async () => {
    const gh = await loopback(0)
    const cancel = new AbortController()
    cancel.abort(new Error('cancelled by SIGINT'))
    await expect(boundedRequest(gh.request, 30_000, cancel.signal)(ROUTE, repo)).rejects.toThrow(
      `${ROUTE}: cancelled by SIGINT`,
    )
    await new Promise((r) => setTimeout(r, 100))
    expect(gh.arrived).toBe(0)
  })

  it('an answer within the bound comes through untouched', async () => {
    const gh = await loopback(20)
    await expect(boundedRequest(gh.request, 5000)(ROUTE, repo)).resolves.toMatchObject({ status: 200, data: {} })
  })
})

describe('boundedGitHub', () => {
  it('an operation of many requests, each in time, ends at the operation bound', async () => {
    // Each answer takes 100 ms, well within the 1 s request bound; 50 of them would take 5 s.
    const gh = await loopback(100)
    const api = boundedGitHub({ request: gh.request, repo }, undefined, { requestMs: 1000, operationMs: 450 })
    let answered = 0
    const timed = await timedInLoop(() =>
      api
        .operation('the baseline write', async (o) => {
          for (let i = 0; i < 50; i++) {
            await o.request(ROUTE, { ...o.repo })
            answered++
          }
        })
        .catch((e: unknown) => e),
    )
    const { value: error, elapsed: took } = timed
    expect((error as Error).message).toBe(`${ROUTE}: the baseline write took longer than 450ms`)
    // A timer may fire up to 1 ms early on the loop's whole-millisecond clock.
    expect(took).toBeGreaterThanOrEqual(449)
    expect(took).toBeLessThanOrEqual(timed.bound(450))
    // Four answers fit in 450 ms at 100 ms each (fewer on a slow machine); the fifth request was cut.
    expect(answered).toBeLessThanOrEqual(4)
    // The request the deadline cut had been sent, unless the deadline fell between an answer and the next send.
    expect(gh.arrived).toBeGreaterThanOrEqual(answered)
    expect(gh.arrived).toBeLessThanOrEqual(answered + 1)
  })

  it('an operation started after the run was cancelled sends nothing', async () => {
    const gh = await loopback(0)
    const cancel = new AbortController()
    cancel.abort(new Error('cancelled by SIGTERM'))
    const api = boundedGitHub({ request: gh.request, repo }, cancel.signal)
    await expect(api.operation('the PR comment', (o) => o.request(ROUTE, { ...o.repo }))).rejects.toThrow(
      `${ROUTE}: cancelled by SIGTERM`,
    )
    expect(gh.arrived).toBe(0)
  })
})
