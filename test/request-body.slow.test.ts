// `request-body`: extra fields reach every request a target gets (smoke, calibration, benchmark,
// quality probe), under the fields the measurement owns, which a matrix file cannot override.
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestBody } from '../src/bench/prompts/prompt.js'
import { DEFAULTS } from '../src/config/inputs.js'
import { memoryLogger } from './helpers/memory-logger.js'
import { ENGINES } from '../src/engines/registry.js'
import { runPipeline } from '../src/run/pipeline.js'
import { startScheduledServer, type ScheduledServer } from '../harness/scheduled-server.js'

const THINKING_OFF = { chat_template_kwargs: { enable_thinking: false }, top_k: 1 }
let server: ScheduledServer
let cwd: string

beforeAll(async () => {
  server = await startScheduledServer({ ttftMs: 20, intervalMs: 5 })
  cwd = await mkdtemp(join(tmpdir(), 'lbg-request-body-'))
  const lines = [
    'version: 1',
    'defaults: { rounds: 2, discard: 1, request-timeout: 10s, quality: { questions: 3, prompts: 2 } }',
    'scenarios:',
    '  s: { input-tokens: 16, output-tokens: 8, concurrency: 2 }',
    'targets:',
    `  chat: { engine: openai, api: chat, url: ${server.url}, model: m, request-body: ${JSON.stringify(THINKING_OFF)} }`,
    '',
  ]
  await writeFile(join(cwd, 'bench.yml'), lines.join('\n'))
})
afterAll(async () => {
  await server?.close()
})

describe('request-body', () => {
  it('reaches every request of the target, the probe included', async () => {
    const context = { event: 'workflow_dispatch', sha: 'f00d', ref: 'refs/heads/main', runUrl: '' }
    const result = await runPipeline({
      options: { ...DEFAULTS, config: 'bench.yml', mode: 'run' },
      context,
      log: memoryLogger(),
      toolVersion: 'test',
      cwd,
      detectHardware: async () => 'cpu',
    })
    expect(result.failure).toBeUndefined()
    const bodies = server.requests.map((r) => r.body)
    // Benchmark requests run to length; the probe's stop at end of sequence: both kinds were sent.
    expect(bodies.filter((b) => b.ignore_eos === false)).toHaveLength(5)
    expect(bodies.filter((b) => b.ignore_eos === true).length).toBeGreaterThanOrEqual(4)
    for (const body of bodies) expect(body).toMatchObject({ ...THINKING_OFF, stream: true, temperature: 0, model: 'm' })
  })

  it('sits under the fields the measurement owns', () => {
    const adapter = ENGINES.find((e) => e.name === 'vllm')!
    const extra = { temperature: 0.9, max_tokens: 1, stream: false, ignore_eos: false, messages: [], top_p: 0.5 }
    const body = JSON.parse(
      requestBody({ adapter, api: 'chat', model: 'm', prompt: 'hi', maxTokens: 16, extra }),
    ) as Record<string, unknown>
    expect(body).toMatchObject({
      temperature: 0,
      max_tokens: 16,
      max_completion_tokens: 16,
      stream: true,
      ignore_eos: true,
      messages: [{ role: 'user', content: 'hi' }],
      top_p: 0.5,
    })
  })
})
