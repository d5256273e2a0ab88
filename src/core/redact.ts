/**
 * Redaction of secrets from everything we write or post: the comment, the job summary, the results file, the
 * HTML pages, log lines and the engine logs under the results directory. The runner masks secrets registered
 * with it in its own log, but not in a comment body posted through the API, an uploaded artifact or a Pages
 * site, so we replace them ourselves with `***`, before any escaping (escaping could split a secret apart).
 *
 * What counts as a secret: every value registered with `registerSecret` (the `github-token` input, the
 * runner's `ACTIONS_*` tokens, values of variables whose names look secret) and well-known token shapes
 * (GitHub's `ghp_`/`gho_`/`ghs_`/`ghu_`/`ghr_`/`github_pat_`, Hugging Face `hf_`, OpenAI-style `sk-`, and the
 * credential after `Bearer `). A registered value may be broken across lines (a wrapped log line): it
 * is found with a line break between any two of its characters.
 */

/** Names of environment variables whose values are treated as secrets (`HF_TOKEN`, `DB_PASSWORD`, `API_KEY`). */
export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase()
  return /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/.test(upper) || /(^|_)KEY$/.test(upper)
}

/** The workflow's own credentials and plumbing: never passed to an engine, whatever `pass-env` says. */
export function isActionCredential(name: string): boolean {
  const upper = name.toUpperCase()
  return upper.startsWith('INPUT_') || upper.startsWith('ACTIONS_') || upper === 'GITHUB_TOKEN' || upper === 'GH_TOKEN'
}

/** Values shorter than this are not redacted by value: `true`, `1` or a port would blank out half a report. */
export const MIN_SECRET_LENGTH = 8

export const MASK = '***'

const SHAPES: readonly RegExp[] = [
  /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
]
// The credential after `Bearer` (RFC 6750 b64token), however it is shaped; the scheme word stays readable.
const BEARER = /\b(Bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi

/** `text` as a RegExp source that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export class Redactor {
  private readonly secrets = new Set<string>()
  private pattern: RegExp | undefined

  /** Adds a value to redact; short or empty values are ignored. */
  add(value: string | undefined): void {
    const trimmed = value?.trim()
    if (!trimmed || trimmed.length < MIN_SECRET_LENGTH || this.secrets.has(trimmed)) return
    this.secrets.add(trimmed)
    this.pattern = undefined
  }

  /** Every secret-looking variable of an environment (name rule above, or `ACTIONS_*` tokens). */
  addFromEnv(env: NodeJS.ProcessEnv): void {
    for (const [name, value] of Object.entries(env)) if (looksSecret(name)) this.add(value)
  }

  get size(): number {
    return this.secrets.size
  }

  redact(text: string): string {
    if (!text) return text
    let out = text
    const pattern = this.compiled()
    if (pattern) out = out.replace(pattern, MASK)
    for (const shape of SHAPES) out = out.replace(shape, MASK)
    return out.replace(BEARER, (_whole, scheme: string, space: string) => `${scheme}${space}${MASK}`)
  }

  /** A deep copy with every string redacted (results files, engine facts). */
  redactDeep<T>(value: T): T {
    return walk(value, (s) => this.redact(s)) as T
  }

  private compiled(): RegExp | undefined {
    if (this.pattern || this.secrets.size === 0) return this.pattern
    // Longest first, so a secret that contains another is masked whole.
    const sorted = [...this.secrets].sort((a, b) => b.length - a.length)
    const split = (secret: string) => [...secret].map(escapeRegExp).join('(?:\\r?\\n)?')
    this.pattern = new RegExp(sorted.map(split).join('|'), 'g')
    return this.pattern
  }
}

function walk(value: unknown, redact: (s: string) => string): unknown {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) return value.map((v) => walk(v, redact))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, redact)
    return out
  }
  return value
}

/** The process-wide redactor every writer goes through; the runner and the CLI fill it at start. */
export const secrets = new Redactor()

export function redact(text: string): string {
  return secrets.redact(text)
}

/**
 * A tool's message for a report or an error, on one line: control characters as spaces, the user and password of
 * a URL (`https://user:token@host`, RFC 3986 §3.2.1 userinfo) masked, known secrets masked, at most `maxChars`.
 */
export function redactLine(text: string, maxChars: number): string {
  const clean = redact(
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, `$1${MASK}@`)
      .trim(),
  )
  return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean
}

declare const REDACTED: unique symbol

/** A value the process-wide redactor has masked: what may be rendered, written or posted, without another pass. */
export type Redacted<T> = T & { readonly [REDACTED]: true }

/** A copy of `value` with every known secret masked, marked as such. */
export function redacted<T>(value: T): Redacted<T> {
  return secrets.redactDeep(value) as Redacted<T>
}
