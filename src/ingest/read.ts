/**
 * Reading other tools' result files: one JSON document, or JSON lines (one document per line, as
 * `vllm bench serve --append-result` and SGLang's `bench_serving` write them). Python's `json.dumps` writes a bare
 * `Infinity`, `-Infinity` or `NaN` for non-finite floats (SGLang's `request_rate` with the default rate), which
 * `JSON.parse` rejects; outside strings they are read as the strings "Infinity", "-Infinity" and "NaN" (which a
 * record treats as absent, except where a gated figure must not be NaN: field-reader.ts).
 */
import { ConfigError, errorMessage } from '../core/errors.js'
import { NAN } from './field-reader.js'
import type { Document } from './types.js'

const PYTHON_WORDS: Record<string, string> = { Infinity: '"Infinity"', '-Infinity': '"-Infinity"', NaN: `"${NAN}"` }

/** The text with Python's non-finite literals outside strings made JSON. */
export function pythonJson(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === '"') {
      const end = stringEnd(text, i)
      out += text.slice(i, end)
      i = end
      continue
    }
    const word = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9))?.[1]
    if (word && !/[\w.]/.test(text[i - 1] ?? '')) {
      out += PYTHON_WORDS[word]
      i += word.length
      continue
    }
    out += ch
    i++
  }
  return out
}

/** Index just past the JSON string starting at `start` (or the text's end when it is cut). */
function stringEnd(text: string, start: number): number {
  let i = start + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return Math.min(i + 1, text.length)
}

/**
 * The JSON documents of a file: the whole text when it parses as one, else one per non-empty line. A line that
 * does not parse fails naming the file, the line and what was expected.
 */
export function readDocuments(text: string, file: string, noun: string): Document[] {
  const json = pythonJson(text)
  if (!json.trim()) throw new ConfigError([`${file}:1: empty file (expected ${noun})`])
  try {
    return [{ value: JSON.parse(json), file, line: json.slice(0, json.search(/\S/)).split('\n').length }]
  } catch {
    // Not one document: JSON lines, or a broken file whose first bad line is named below.
  }
  const docs: Document[] = []
  json.split('\n').forEach((line, index) => {
    if (!line.trim()) return
    try {
      docs.push({ value: JSON.parse(line), file, line: index + 1 })
    } catch (error) {
      throw new ConfigError([`${file}:${index + 1}: not valid JSON (${errorMessage(error)}; expected ${noun})`])
    }
  })
  return docs
}
