/**
 * The per-request record's files (target-run/request-files.ts): one folder per cell under `requests/`, both files
 * rewritten after each steady round, a request line per request up to the per-round cap (the rest counted), error
 * texts redacted and cut, and a symbolic link in the way refused without ending the measurement.
 */
import { mkdtemp, mkdir, readFile, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RequestRecord, RoundResult } from '../../src/core/measurements.js'
import {
  MAX_ERROR_CHARS,
  MAX_REQUESTS_PER_ROUND,
  RequestRecorder,
  requestDir,
} from '../../src/target-run/request-files.js'
import { round } from '../helpers/builders.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { checkTrace } from '../helpers/trace-check.js'

function records(n: number, from = 0, extra: Partial<RequestRecord> = {}): RequestRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    index: from + i,
    ok: true,
    queueMs: 0,
    sentAt: 5000 + i * 10,
    ttftMs: 4,
    e2eMs: 8,
    endMs: 8,
    promptTokens: 64,
    outputTokens: 4,
    usageReported: true,
    itlMs: [],
    chunks: 4,
    ...extra,
  }))
}

const steady = (index: number): RoundResult => round(index, true)

async function lines(dir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, 'requests.jsonl'), 'utf8')
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('requestDir', () => {
  it.each([
    ['sim/chat', 'requests/sim/chat'],
    ['vllm-fp8/chat-1k@c4', 'requests/vllm-fp8/chat-1k@c4'],
  ])('%s → %s', (id, dir) => {
    expect(requestDir(id)).toBe(dir)
  })

  it('makes an unsafe part safe, tells it apart by a digest, and never climbs out of the folder', () => {
    const dir = requestDir('a b/../x')
    expect(dir).toMatch(/^requests\/a_b-[0-9a-f]+\/cell-[0-9a-f]+\/x$/)
    expect(requestDir('a_b/x')).not.toBe(requestDir('a b/x'))
  })
})

describe('RequestRecorder', () => {
  it('writes each steady round as it ends, one line per request, and a trace with a process per round', async () => {
    const results = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-'))
    const recorder = new RequestRecorder(results, 'sim/chat', memoryLogger())
    expect(recorder.files).toBeUndefined()
    recorder.round(steady(1), records(3))
    const dir = join(results, 'requests/sim/chat')
    expect(await lines(dir)).toHaveLength(3)
    recorder.round(steady(2), records(3, 3))
    expect((await lines(dir)).map((l) => [l.round, l.request])).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
      [2, 3],
      [2, 4],
      [2, 5],
    ])
    const trace = checkTrace(await readFile(join(dir, 'trace.json'), 'utf8'))
    expect(trace.problems).toEqual([])
    expect(trace.overlaps).toEqual([])
    const names = trace.events.filter((e) => e.name === 'process_name').map((e) => e.args?.name)
    expect(names).toEqual(['round 1', 'round 2'])
    expect(recorder.files).toEqual({ dir: 'requests/sim/chat', requests: 6 })
  })

  it('names a re-measurement’s rounds apart from the first measurement’s', async () => {
    const results = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-'))
    const recorder = new RequestRecorder(results, 'sim/chat', memoryLogger())
    for (const index of [1, 2, 1]) recorder.round(steady(index), records(1))
    const trace = checkTrace(await readFile(join(results, 'requests/sim/chat/trace.json'), 'utf8'))
    const names = trace.events.filter((e) => e.name === 'process_name').map((e) => e.args?.name)
    expect(names).toEqual(['round 1', 'round 2', 'round 1 (measurement 2)'])
  })

  it(`writes at most ${MAX_REQUESTS_PER_ROUND} requests a round and counts the rest`, async () => {
    const results = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-'))
    const recorder = new RequestRecorder(results, 'sim/big', memoryLogger())
    recorder.round(steady(1), records(MAX_REQUESTS_PER_ROUND + 5))
    expect(await lines(join(results, 'requests/sim/big'))).toHaveLength(MAX_REQUESTS_PER_ROUND)
    expect(recorder.files).toEqual({ dir: 'requests/sim/big', requests: MAX_REQUESTS_PER_ROUND, omitted: 5 })
  })

  it('redacts and cuts an error text', async () => {
    const results = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-'))
    const recorder = new RequestRecorder(results, 'sim/err', memoryLogger())
    const token = `ghp_${'a'.repeat(30)}`
    const error = `HTTP 401: bad token ${token} ${'x'.repeat(500)}`
    recorder.round(steady(1), records(1, 0, { ok: false, ttftMs: 0, e2eMs: 0, error }))
    const [line] = await lines(join(results, 'requests/sim/err'))
    expect(line.error).toMatch(/^HTTP 401: bad token \*\*\* x+…$/)
    expect((line.error as string).length).toBeLessThanOrEqual(MAX_ERROR_CHARS)
    expect(await readFile(join(results, 'requests/sim/err/trace.json'), 'utf8')).not.toContain(token)
  })

  it('refuses to write through a symbolic link, says so once, and records no files', async () => {
    const results = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-'))
    const elsewhere = await mkdtemp(join(tmpdir(), 'lbg-reqfiles-elsewhere-'))
    await mkdir(join(results, 'requests'))
    await symlink(elsewhere, join(results, 'requests/sim'))
    const log = memoryLogger()
    const recorder = new RequestRecorder(results, 'sim/chat', log)
    recorder.round(steady(1), records(2))
    recorder.round(steady(2), records(2))
    expect(recorder.files).toBeUndefined()
    expect(log.lines.filter((l) => l.includes('per-request record not written'))).toHaveLength(1)
    expect(log.lines.join('\n')).toMatch(/symbolic link/)
  })
})
