/** A file that is not of the format fails naming the file, the line and what was expected, as a usage error. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import { ingestFormat, ingestText } from '../../src/ingest/index.js'
import { pythonJson } from '../../src/ingest/read.js'
import { ROOT } from '../helpers/root.js'

const vllmText = () => readFile(join(ROOT, 'fixtures/ingest/vllm-save-result.json'), 'utf8')

function problem(format: string, text: string, file = 'runs/x.json'): string {
  try {
    ingestText(ingestFormat(format), text, file)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).problems.join('\n')
  }
  throw new Error('expected the file to be refused')
}

describe('ingest errors', () => {
  it('names the file, the line and the expected key of a foreign JSON file', () => {
    expect(problem('vllm', '{"name": "not a benchmark"}', 'runs/vllm.json')).toBe(
      'runs/vllm.json:1: not a vLLM bench result: missing `mean_ttft_ms`',
    )
  })

  it('names the line of a truncated file', async () => {
    const text = await vllmText()
    expect(problem('vllm', text.slice(0, 200), 'runs/vllm.json')).toMatch(
      /^runs\/vllm\.json:1: not valid JSON \(.*; expected a vLLM bench result\)$/,
    )
  })

  it('names the bad line of a JSON-lines file', async () => {
    const line = (await vllmText()).trim()
    expect(problem('vllm', `${line}\n${line.slice(0, 50)}\n`, 'runs/append.jsonl')).toMatch(
      /^runs\/append\.jsonl:2: not valid JSON/,
    )
  })

  it('names a field of the wrong type', async () => {
    const raw = JSON.parse(await vllmText())
    raw.output_throughput = 'fast'
    expect(problem('vllm', `\n\n${JSON.stringify(raw)}`)).toBe(
      'runs/x.json:3: not a vLLM bench result: `output_throughput`: expected a number, got "fast"',
    )
  })

  it('refuses a rate that is neither a number nor "inf"', async () => {
    const raw = JSON.parse(await vllmText())
    raw.request_rate = 'fast'
    expect(problem('vllm', JSON.stringify(raw))).toContain('`request_rate`: expected a number or "inf", got "fast"')
  })

  it.each([
    ['sglang', '{"completed": 3}', 'runs/x.json:1: not an SGLang bench_serving result: missing `mean_ttft_ms`'],
    [
      'llama-bench',
      '[{"n_prompt": 512, "n_gen": 0, "avg_ts": 100}, {"n_gen": 128}]',
      'runs/x.json:1 (test 2): not a llama-bench test: missing `n_prompt`',
    ],
    ['llama-bench', '[]', 'runs/x.json:1: not a llama-bench test: an empty list'],
    [
      'guidellm',
      '{"benchmarks": [{"metrics": {}}]}',
      'runs/x.json:1 (benchmarks[0]): not a GuideLLM benchmark: missing `metrics.request_totals`',
    ],
    ['guidellm', '[1, 2]', 'runs/x.json:1: not a GuideLLM benchmarks file: expected a JSON object, got a list of 2'],
    [
      'aiperf',
      '{"request_count": {"avg": 3}}',
      'runs/x.json:1: not an AIPerf profile export: missing `time_to_first_token`',
    ],
    [
      'aiperf',
      '{"time_to_first_token": {"unit": "weeks", "avg": 1}, "request_count": {"avg": 1}}',
      'runs/x.json:1 (time_to_first_token): not an AIPerf profile export: `unit`: expected one of ms, s, sec, us, ns, got "weeks"',
    ],
  ])('%s: %s', (format, text, expected) => {
    expect(problem(format, text)).toBe(expected)
  })

  it('refuses an empty file and an unknown format', () => {
    expect(problem('vllm', '  \n')).toBe('runs/x.json:1: empty file (expected a vLLM bench result)')
    expect(() => ingestFormat('locust')).toThrow(
      '--format: "locust" is not one of vllm, sglang, llama-bench, guidellm, aiperf',
    )
  })
})

describe('pythonJson', () => {
  it('turns bare Infinity, -Infinity and NaN into JSON, leaving strings alone', () => {
    expect(
      JSON.parse(pythonJson('{"a": Infinity, "b": -Infinity, "c": NaN, "d": "Infinity NaN", "e": [1e5, Infinity]}')),
    ).toEqual({
      a: 'Infinity',
      b: '-Infinity',
      c: 'NaN',
      d: 'Infinity NaN',
      e: [1e5, 'Infinity'],
    })
  })
})
