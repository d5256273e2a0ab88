/**
 * The results and history reader: every malformed field is one problem naming the file and the field
 * path; first-release files read as the current shapes; unknown fields are kept; files the pipeline
 * writes read back unchanged.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import { GATED_METRICS, readMetric } from '../../src/core/metrics.js'
import { HISTORY_SCHEMA, type ResultsFile } from '../../src/core/results.js'
import { checkReadBack, readBackProblem, readHistory, readResults, readResultsFile } from '../../src/store/index.js'
import { ROOT } from '../helpers/root.js'
import { readProblems, storedCell, storedResults } from '../helpers/builders.js'

const WHERE = 'baseline-file ./base.json'
const PROBE = { seed: 1, questions: 40, correct: 40, accuracy: 1, greedy: [{ prompt: 'Say hi.', text: 'Hi there.' }] }

/** Three cells; the first carries a judged verdict in the current shape. */
function sample(): ResultsFile {
  const file = storedResults('f00d', '2025-03-01T00:00:00Z', [
    storedCell('t/a', [
      { decode: 50, ttft: 300 },
      { decode: 52, ttft: 310 },
    ]),
    storedCell('t/b', [{ decode: 40, ttft: 200 }]),
    storedCell('u/a', [{ decode: 30, ttft: 100 }]),
  ])
  file.cells[0].verdict = {
    status: 'pass',
    metrics: {
      decode: {
        status: 'pass',
        metric: 'decode',
        stat: 'mean',
        current: 51,
        baseline: 50,
        delta: 0.02,
        reason: 'decode tok/s +2.0%',
      },
    },
    reference: { ttft: { stat: 'mean', value: 305 } },
  }
  file.summary = { verdict: 'pass', regressions: 0, counts: { pass: 3 } }
  return file
}

const problems = (text: string) => readProblems(text, WHERE)

/** Edits a parsed file in place; malformed on purpose, so untyped. */
type Edit = (f: any) => void

describe('readResults: malformed fields', () => {
  it.each<[string, Edit, string]>([
    [
      'a word for a number',
      (f) => (f.cells[2].metrics.ttft_ms.p99 = 'fast'),
      'cells[2].metrics.ttft_ms.p99: expected a number, got "fast"',
    ],
    ['a missing id', (f) => delete f.cells[0].id, 'cells[0].id: missing (expected a string)'],
    [
      'an unknown cell status',
      (f) => (f.cells[1].status = 'fine'),
      'cells[1].status: expected one of "ok", "error", got "fine"',
    ],
    [
      'null for a round count',
      (f) => (f.cells[0].rounds[1].requests = null),
      'cells[0].rounds[1].requests: expected a number, got null',
    ],
    [
      'a missing distribution',
      (f) => delete f.cells[0].rounds[0].metrics.itl_ms,
      'cells[0].rounds[0].metrics.itl_ms: missing (expected an object)',
    ],
    [
      'a missing scalar',
      (f) => delete f.cells[1].metrics.output_tps,
      'cells[1].metrics.output_tps: missing (expected a number)',
    ],
    [
      'text for the metrics block',
      (f) => (f.cells[0].metrics = 'n/a'),
      'cells[0].metrics: expected an object or null, got "n/a"',
    ],
    ['a number for quant', (f) => (f.cells[0].quant = 8), 'cells[0].quant: expected a string or null, got 8'],
    [
      'an image pull as text',
      (f) => (f.cells[0].image_pull_s = '3m'),
      'cells[0].image_pull_s: expected a number, got "3m"',
    ],
    ['flags as text', (f) => (f.cells[0].flags = 'slow'), 'cells[0].flags: expected a list, got "slow"'],
    ['a flag that is not text', (f) => (f.cells[0].flags = [true]), 'cells[0].flags[0]: expected a string, got true'],
    [
      'a rate as text',
      (f) => (f.cells[0].workload.rate = '2/s'),
      'cells[0].workload.rate: expected a number or null, got "2/s"',
    ],
    [
      'steady as text',
      (f) => (f.cells[0].rounds[0].steady = 'yes'),
      'cells[0].rounds[0].steady: expected true or false, got "yes"',
    ],
    [
      'spec-decode stats without a source',
      (f) => (f.cells[0].specDecode = { acceptanceRate: 0.5 }),
      'cells[0].specDecode.source: missing (expected a string)',
    ],
    [
      'an unknown cell verdict',
      (f) => (f.cells[0].verdict.status = 'ok'),
      'cells[0].verdict.status: expected one of "pass", "improvement", "regression", "inconclusive", "new", "missing", "error", got "ok"',
    ],
    [
      'a verdict for an unknown metric',
      (f) => (f.cells[0].verdict.metrics.speed = f.cells[0].verdict.metrics.decode),
      `cells[0].verdict.metrics.speed: not a gated metric (one of ${GATED_METRICS.join(', ')})`,
    ],
    [
      'a metric verdict naming an unknown figure',
      (f) => (f.cells[0].verdict.metrics.decode.metric = 'decode_tps.max'),
      `cells[0].verdict.metrics.decode.metric: expected a gated metric (${GATED_METRICS.join(', ')}) or a metric key like "decode_tps.mean", got "decode_tps.max"`,
    ],
    [
      'a metric verdict filed under another metric',
      (f) => (f.cells[0].verdict.metrics.ttft = f.cells[0].verdict.metrics.decode),
      'cells[0].verdict.metrics.ttft.metric: is "decode", but the verdict is filed under "ttft"',
    ],
    [
      'an unknown statistic',
      (f) => (f.cells[0].verdict.metrics.decode.stat = 'p95'),
      'cells[0].verdict.metrics.decode.stat: expected one of "mean", "p50", "p90", "p99", got "p95"',
    ],
    [
      'a delta as text',
      (f) => (f.cells[0].verdict.metrics.decode.delta = '+2%'),
      'cells[0].verdict.metrics.decode.delta: expected a number or null, got "+2%"',
    ],
    [
      'a reference without its value',
      (f) => delete f.cells[0].verdict.reference.ttft.value,
      'cells[0].verdict.reference.ttft.value: missing (expected a number)',
    ],
    [
      'another tool name',
      (f) => (f.run.tool.name = 'other-bench'),
      'run.tool.name: expected "llm-bench-gate", got "other-bench"',
    ],
    ['a number for the sha', (f) => (f.run.sha = 1234), 'run.sha: expected a string, got 1234'],
    ['no run', (f) => delete f.run, 'run: missing (expected an object)'],
    ['cells as an object', (f) => (f.cells = {}), 'cells: expected a list, got an object'],
    [
      'an unknown run verdict',
      (f) => (f.summary.verdict = 'meh'),
      'summary.verdict: expected one of "pass", "regression", "inconclusive", "error", got "meh"',
    ],
    [
      'an accuracy above 1',
      (f) => (f.cells[0].quality = { probe: { ...PROBE, accuracy: 40 } }),
      'cells[0].quality.probe.accuracy: expected a number from 0 to 1, got 40',
    ],
    [
      'greedy outputs as text',
      (f) => (f.cells[0].quality = { probe: { ...PROBE, greedy: 'x' } }),
      'cells[0].quality.probe.greedy: expected a list, got "x"',
    ],
    [
      'a degenerate tally without its kinds',
      (f) => (f.cells[0].quality = { degenerate: { judged: 2, degenerate: 0, share: 0 } }),
      'cells[0].quality.degenerate.kinds: missing (expected an object)',
    ],
    [
      'an agreement as text',
      (f) => (f.cells[0].quality = { agreement: { mean: 'high', prompts: 3 } }),
      'cells[0].quality.agreement.mean: expected a number from 0 to 1, got "high"',
    ],
    [
      'an unknown count',
      (f) => (f.summary.counts.great = 1),
      'summary.counts.great: not a cell verdict (one of pass, improvement, regression, inconclusive, new, missing, error)',
    ],
  ])('%s', (_, edit, problem) => {
    const file = sample()
    edit(file)
    expect(problems(JSON.stringify(file))).toEqual([`${WHERE}: ${problem}`])
  })

  // A figure the measuring tool did not report (an ingested file without p90 or a failed count) is null, and reads as not measured.
  it('reads a null statistic or round figure as not measured', () => {
    const file = sample() as any
    file.cells[0].rounds[1].metrics.decode_tps.mean = null
    file.cells[0].metrics.failed_share = null
    const read = readResults(JSON.stringify(file), WHERE)
    expect(read.cells[0].rounds[1].metrics.decode_tps.mean).toBeNull()
    expect(readMetric(read.cells[0].rounds[1].metrics, 'decode', 'mean')).toBeUndefined()
    expect(readMetric(read.cells[0].metrics, 'failed-requests', 'mean')).toBeUndefined()
  })

  it('refuses numbers JSON reads as infinite', () => {
    const text = JSON.stringify(sample()).replace('"p99":303', '"p99":1e999')
    expect(problems(text)).toEqual([
      `${WHERE}: cells[0].rounds[1].metrics.ttft_ms.p99: expected a number, got Infinity`,
    ])
  })

  it('lists every problem of a file, in file order', () => {
    const file = sample() as any
    file.run.hardware = null
    file.cells[1].engine = 3
    file.cells[2].rounds[0].errors = 'none'
    expect(problems(JSON.stringify(file))).toEqual([
      `${WHERE}: run.hardware: expected a string, got null`,
      `${WHERE}: cells[1].engine: expected a string, got 3`,
      `${WHERE}: cells[2].rounds[0].errors: expected a number, got "none"`,
    ])
  })

  it('counts the problems past the first twenty instead of listing them', () => {
    const file = sample()
    file.cells = Array.from({ length: 30 }, (_, i) => ({ ...file.cells[1], id: i }) as never)
    const found = problems(JSON.stringify(file))
    expect(found).toHaveLength(21)
    expect(found[0]).toBe(`${WHERE}: cells[0].id: expected a string, got 0`)
    expect(found[20]).toBe(`${WHERE}: … and 10 more problems`)
  })

  it.each([
    ['invalid JSON', '{"schema": ', 'not valid JSON'],
    ['a list', '[]', 'not a llm-bench-gate results file: expected a JSON object, got a list of 0'],
    [
      'an object without a schema',
      '{"name": "x"}',
      'not a llm-bench-gate results file: schema is missing (expected "llm-bench-gate/results@1")',
    ],
    [
      'another schema',
      '{"schema": "x"}',
      'not a llm-bench-gate results file: schema is "x" (expected "llm-bench-gate/results@1")',
    ],
    [
      'a history file',
      `{"schema": "${HISTORY_SCHEMA}"}`,
      `schema is "${HISTORY_SCHEMA}", expected "llm-bench-gate/results@1"`,
    ],
    [
      'a later version',
      '{"schema": "llm-bench-gate/results@2"}',
      'schema is "llm-bench-gate/results@2", expected "llm-bench-gate/results@1"',
    ],
  ])('names what was expected at the top level for %s', (_, text, problem) => {
    const [found] = problems(text)
    expect(found.startsWith(`${WHERE}: ${problem}`), found).toBe(true)
  })
})

describe('readResults: what reads', () => {
  it('keeps fields it does not know, at every level', () => {
    const file = sample() as any
    file.producer = { ci: 'buildkite' }
    file.run.gpuDriver = '580.1'
    file.cells[0].power = { watts: 120 }
    file.cells[0].rounds[1].metrics.gpu_util = 0.93
    file.cells[0].verdict.metrics.decode.confidence = 0.99
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
  })

  it('reads the demo baseline the first release shipped, and fills in the failed share', async () => {
    const text = await readFile(join(ROOT, 'fixtures/release-one/demo-baseline.json'), 'utf8')
    const raw = JSON.parse(text) as ResultsFile
    expect(raw.cells[0].metrics).not.toHaveProperty('failed_share')
    const read = readResults(text, 'demo')
    expect(read.cells.map((c) => c.metrics!.failed_share)).toEqual(raw.cells.map(() => 0))
    for (const c of read.cells) for (const r of c.rounds) expect(r.metrics.failed_share).toBe(0)
    // Apart from the added share, the file reads as written.
    const strip = (f: ResultsFile) =>
      JSON.parse(JSON.stringify(f, (key, value) => (key === 'failed_share' ? undefined : value)))
    expect(strip(read)).toEqual(raw)
  })

  it('reads the shipped demo baseline, with its quality probe, energy and spec-decode factors', async () => {
    const read = readResults(await readFile(join(ROOT, 'fixtures/demo-baseline.json'), 'utf8'), 'demo')
    // Three engines × two scenarios and the fault target's one cell (fixtures/demo.yml), measured healthy.
    expect(read.cells).toHaveLength(7)
    for (const c of read.cells) {
      expect(c.quality?.probe?.questions).toBeGreaterThan(0)
      expect(c.metrics?.energy_j_per_token).toBeGreaterThan(0)
    }
    const spec = read.cells.filter((c) => /sglang|llamacpp/.test(c.target))
    expect(spec).toHaveLength(4)
    for (const c of spec) expect([c.metrics?.accept_length, c.metrics?.step_ms].every((v) => v! > 0)).toBe(true)
  })

  it('reads first-release verdicts and references as { metric, stat }', () => {
    const file = sample() as any
    file.cells[0].verdict = {
      status: 'regression',
      metrics: {
        decode: {
          status: 'regression',
          metric: 'decode_tps.mean',
          current: 40,
          baseline: 50,
          delta: -0.2,
          reason: 'decode tok/s −20.0%',
        },
        ttft: { status: 'pass', metric: 'ttft_ms.p99', current: 300, baseline: 300, delta: 0, reason: 'TTFT p99 0.0%' },
        'output-throughput': {
          status: 'pass',
          metric: 'output_tps',
          current: 350,
          baseline: 350,
          delta: 0,
          reason: 'output tok/s 0.0%',
        },
      },
      reference: { 'decode_tps.mean': 50, 'ttft_ms.p99': 300, output_tps: 350 },
    }
    const verdict = readResults(JSON.stringify(file), WHERE).cells[0].verdict
    expect(verdict.metrics.decode).toMatchObject({ metric: 'decode', stat: 'mean', current: 40 })
    expect(verdict.metrics.ttft).toMatchObject({ metric: 'ttft', stat: 'p99' })
    expect(verdict.metrics['output-throughput']).toMatchObject({ metric: 'output-throughput', stat: 'mean' })
    expect(verdict.reference).toEqual({
      decode: { stat: 'mean', value: 50 },
      ttft: { stat: 'p99', value: 300 },
      'output-throughput': { stat: 'mean', value: 350 },
    })
  })

  it('derives a missing failed share from the round counts, and the cell share from its steady rounds', () => {
    const file = sample()
    const c = file.cells[0]
    // Rounds: warm-up 8 requests / 4 failed (not steady), then 8/2 and 8/0.
    c.rounds[0].errors = 4
    c.rounds[1].errors = 2
    for (const block of [c.metrics!, ...c.rounds.map((r) => r.metrics)])
      delete (block as Partial<typeof block>).failed_share
    const read = readResults(JSON.stringify(file), WHERE).cells[0]
    expect(read.rounds.map((r) => r.metrics.failed_share)).toEqual([0.5, 0.25, 0])
    expect(read.metrics!.failed_share).toBe(2 / 16)
  })

  it('reads startup_s and image_pull_s as written, and a cell without a pull as it is', () => {
    const file = sample()
    file.cells[0].startup_s = 41.2
    file.cells[0].image_pull_s = 190.5
    file.cells[1].startup_s = 38
    const read = readResults(JSON.stringify(file), WHERE)
    expect(read.cells[0]).toMatchObject({ startup_s: 41.2, image_pull_s: 190.5 })
    expect(read.cells[1]).not.toHaveProperty('image_pull_s')
  })

  it('keeps a written failed share as it is', () => {
    const file = sample()
    file.cells[0].metrics!.failed_share = 0.3
    expect(readResults(JSON.stringify(file), WHERE).cells[0].metrics!.failed_share).toBe(0.3)
  })

  it('reads quality figures as written, and files without them (older files) as they are', () => {
    const file = sample()
    file.cells[0].quality = {
      probe: PROBE,
      probeMs: 1200,
      agreement: { mean: 0.9, prompts: 12, worst: '"x" shares 1 of 2 tokens' },
      degenerate: { judged: 8, degenerate: 0, share: 0, kinds: { repeat: 0, vocabulary: 0, compression: 0 } },
    }
    file.cells[1].quality = {
      degenerate: { judged: 0, degenerate: 0, share: null, kinds: { repeat: 0, vocabulary: 0, compression: 0 } },
    }
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
    expect(readResults(JSON.stringify(sample()), WHERE).cells[2].quality).toBeUndefined()
  })

  it('reads an error cell: no metrics, no rounds', () => {
    const file = sample()
    file.cells[1] = {
      ...file.cells[1],
      status: 'error',
      error: 'exit 1',
      metrics: null,
      rounds: [],
      verdict: { status: 'error', metrics: {}, note: 'exit 1' },
    }
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
  })

  it('reads a delta JSON wrote as null (a share rising from zero)', () => {
    const file = sample()
    file.cells[0].verdict.metrics['failed-requests'] = {
      status: 'regression',
      metric: 'failed-requests',
      stat: 'mean',
      current: 0.2,
      baseline: 0,
      delta: Infinity,
      reason: 'x',
    }
    const read = readResults(JSON.stringify(file), WHERE)
    expect(read.cells[0].verdict.metrics['failed-requests']!.delta).toBeNull()
  })
})

describe('readResultsFile', () => {
  it('names the file it cannot read', async () => {
    const error = await readResultsFile('/nonexistent/results.json', 'current').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(/^current \/nonexistent\/results\.json: cannot read \(ENOENT/)
  })
})

describe('readHistory', () => {
  const history = {
    schema: HISTORY_SCHEMA,
    hardware: 'cpu',
    entries: [
      {
        sha: 'a',
        date: '2025-03-01T00:00:00Z',
        runUrl: '',
        cells: {
          't/a': { 'decode_tps.mean': { steady: 50, rounds: [49, 51] }, output_tps: { steady: 350, rounds: [350] } },
        },
      },
    ],
  }

  it('reads a history file as written', () => {
    expect(readHistory(JSON.stringify(history), 'h')).toEqual(history)
  })

  it.each<[string, Edit, string]>([
    [
      'a steady value as text',
      (h) => (h.entries[0].cells['t/a']['decode_tps.mean'].steady = 'x'),
      'entries[0].cells["t/a"]["decode_tps.mean"].steady: expected a number, got "x"',
    ],
    [
      'a round sample as text',
      (h) => (h.entries[0].cells['t/a'].output_tps.rounds = ['1']),
      'entries[0].cells["t/a"].output_tps.rounds[0]: expected a number, got "1"',
    ],
    ['no sha', (h) => delete h.entries[0].sha, 'entries[0].sha: missing (expected a string)'],
    ['entries as an object', (h) => (h.entries = {}), 'entries: expected a list, got an object'],
    [
      'a results file',
      (h) => (h.schema = 'llm-bench-gate/results@1'),
      'schema is "llm-bench-gate/results@1", expected "llm-bench-gate/history@1"',
    ],
  ])('%s', (_, edit, problem) => {
    const h = structuredClone(history)
    edit(h)
    expect(() => readHistory(JSON.stringify(h), 'llm-bench-data:cpu/history.json')).toThrow(
      new ConfigError([`llm-bench-data:cpu/history.json: ${problem}`]),
    )
  })
})

describe('readBackProblem: never write what cannot be read', () => {
  it('a results file with NaN and Infinity where numbers belong (JSON writes null) is refused, naming each field', () => {
    const file = storedResults('a', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])])
    file.cells[0].rounds[1].server = {
      deltas: { 'vllm:num_preemptions_total': 2 },
      peaks: { 'vllm:kv_cache_usage_perc': Number.POSITIVE_INFINITY },
      means: { 'vllm:kv_cache_usage_perc': Number.NaN },
      samples: 2,
    }
    const text = JSON.stringify(file, null, 2)
    expect(readBackProblem(text, 'out/results.json', 'results')).toBe(
      'out/results.json: not written, it would not read back: ' +
        'cells[0].rounds[1].server.peaks["vllm:kv_cache_usage_perc"]: expected a number, got null; ' +
        'cells[0].rounds[1].server.means["vllm:kv_cache_usage_perc"]: expected a number, got null',
    )
    expect(() => checkReadBack(text, 'out/results.json', 'results')).toThrow('would not read back')
    // A null figure of a metrics block is "not measured", which reads.
    file.cells[0].rounds[1].server = undefined
    file.cells[0].metrics!.ttft_ms.p90 = Number.NaN
    expect(readBackProblem(JSON.stringify(file), 'out/results.json', 'results')).toBeUndefined()
  })

  it('a history file with a NaN round sample is refused; one that reads is returned as it is', () => {
    const entry = {
      sha: 'a',
      date: '2025-03-01T00:00:00Z',
      runUrl: '',
      cells: { 't/a': { output_tps: { steady: 1, rounds: [Number.NaN] } } },
    }
    const text = JSON.stringify({ schema: HISTORY_SCHEMA, hardware: 'cpu', entries: [entry] })
    expect(readBackProblem(text, 'h', 'history')).toBe(
      'h: not written, it would not read back: entries[0].cells["t/a"].output_tps.rounds[0]: expected a number, got null',
    )
    const fine = text.replace('null', '2')
    expect(checkReadBack(fine, 'h', 'history')).toBe(fine)
  })
})
