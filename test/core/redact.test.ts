// Secrets never reach what we write or post.
import { describe, expect, it } from 'vitest'
import { MASK, Redactor, looksSecret } from '../../src/core/redact.js'

const TOKEN = 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'

function redactor(...values: string[]): Redactor {
  const r = new Redactor()
  for (const v of values) r.add(v)
  return r
}

describe('redaction', () => {
  it.each<[string, string, string]>([
    ['a registered value', `token=${'s3cr3t-value-42'}`, `token=${MASK}`],
    ['a GitHub classic token', `echo ghp_${'x'.repeat(36)} done`, `echo ${MASK} done`],
    ['a fine-grained PAT', `github_pat_11ABCDEFG_${'y'.repeat(40)}`, MASK],
    ['a GitHub app token', `using ${TOKEN}`, `using ${MASK}`],
    ['a Hugging Face token', `HF_TOKEN=hf_${'z'.repeat(34)}`, `HF_TOKEN=${MASK}`],
    ['an OpenAI-style key', `key sk-proj-${'k'.repeat(40)}`, `key ${MASK}`],
    ['a bearer credential', 'Authorization: Bearer abc.def-ghi_jkl', `Authorization: Bearer ${MASK}`],
  ])('%s', (_name, text, expected) => {
    expect(redactor('s3cr3t-value-42').redact(text)).toBe(expected)
  })

  it('masks the longer of two overlapping secrets whole', () => {
    const r = redactor('abcdefgh', 'abcdefgh-and-more')
    expect(r.redact('x abcdefgh-and-more y abcdefgh z')).toBe(`x ${MASK} y ${MASK} z`)
  })

  it('finds a registered secret broken across lines of a log tail', () => {
    const secret = 'Zq8nW2pLx7Rt4Vb9'
    const tail = `line one\n${secret.slice(0, 6)}\n${secret.slice(6)} rest\r\n${secret.slice(0, 3)}\r\n${secret.slice(3)}`
    expect(redactor(secret).redact(tail)).toBe(`line one\n${MASK} rest\r\n${MASK}`)
  })

  it('leaves short values and ordinary text alone', () => {
    const r = redactor('true', '8000', '1234567')
    expect(r.size).toBe(0)
    expect(r.redact('port 8000 is true; no token within 10m; Bearer 1234')).toBe(
      'port 8000 is true; no token within 10m; Bearer 1234',
    )
  })

  it('treats regular expression characters in secrets literally', () => {
    expect(redactor('a.b*c+d(e)f?[g]').redact('xa.b*c+d(e)f?[g]y axbbbcd')).toBe(`x${MASK}y axbbbcd`)
  })

  it('takes secret-looking variables from an environment', () => {
    const r = new Redactor()
    r.addFromEnv({
      HF_TOKEN: 'hf-secret-1234',
      DB_PASSWORD: 'hunter2hunter2',
      API_KEY: 'k-12345678',
      MONKEY: 'banana-split',
      PATH: '/usr/bin:/bin',
    })
    expect(r.redact('hf-secret-1234 hunter2hunter2 k-12345678 banana-split /usr/bin:/bin')).toBe(
      `${MASK} ${MASK} ${MASK} banana-split /usr/bin:/bin`,
    )
  })

  it('redacts every string of a nested value and leaves the original untouched', () => {
    const value = { a: [`x ${TOKEN}`, 3, null], b: { c: TOKEN } }
    expect(new Redactor().redactDeep(value)).toEqual({ a: [`x ${MASK}`, 3, null], b: { c: MASK } })
    expect(value.b.c).toBe(TOKEN)
  })
})

describe('secret-looking names', () => {
  it.each([
    'HF_TOKEN',
    'GITHUB_TOKEN',
    'INPUT_GITHUB-TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'DB_PASSWORD',
    'API_KEY',
    'KEY',
  ])('%s looks secret', (name) => {
    expect(looksSecret(name)).toBe(true)
  })
  it.each(['PATH', 'HOME', 'MONKEY', 'KEYBOARD', 'CUDA_HOME', 'PORT'])('%s does not', (name) => {
    expect(looksSecret(name)).toBe(false)
  })
})
