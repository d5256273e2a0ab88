// Files built to exhaust a parser end as configuration errors naming the file, like any other bad config.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import { MAX_DEPTH, parseSource } from '../../src/config/load.js'

function aliasBomb(): string {
  const lines = ['version: 1', 'a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    )
  return [...lines, 'scenarios: {}', 'targets: {}'].join('\n')
}

describe('hostile matrix files', () => {
  it.each<[string, string, 'yaml' | 'json', RegExp]>([
    ['a YAML alias bomb', aliasBomb(), 'yaml', /^bomb\.yml: cannot be parsed \(Excessive alias count/],
    [
      'JSON nested 100,000 deep',
      `{"version":1,"scenarios":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      'json',
      /^deep\.json: nested 100001 levels deep \(at most 64\)$/,
    ],
    [
      'YAML flow nesting past the bound',
      `version: 1\nscenarios: ${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}\n`,
      'yaml',
      /nested 65 levels deep \(at most 64\)/,
    ],
  ])('%s', (_name, text, format, message) => {
    const name = format === 'json' ? 'deep.json' : 'bomb.yml'
    let error: unknown
    try {
      parseSource(text, name, format)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toHaveLength(1)
    expect((error as ConfigError).problems[0]).toMatch(message)
  })

  it('a file within the bound parses', () => {
    const nested = `version: 1\nx: ${'['.repeat(MAX_DEPTH - 2)}${']'.repeat(MAX_DEPTH - 2)}\n`
    expect(() => parseSource(nested, 'ok.yml', 'yaml')).not.toThrow()
  })
})
