/**
 * Escaping for text that comes from engines and configs (model names, errors, log tails, versions, ids):
 * it must never close a table cell, open a tag, start a code span or a link, or end a code fence.
 */

// ANSI colour/cursor sequences (engine logs are full of them) and other C0/C1 controls except tab and newline:
// matching control characters is the point of these two patterns.
/* eslint-disable no-control-regex */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g
/* eslint-enable no-control-regex */

// Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks: they can make text read in an
// order other than the one it is stored in (the "Trojan Source" trick), so engine text never carries them.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export function stripControl(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(ANSI, '').replace(CONTROL, '').replace(BIDI, '')
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** For raw HTML contexts (`<summary>`, attributes). */
export function escapeHtml(text: string): string {
  return stripControl(text).replace(/[&<>"']/g, (c) => HTML[c])
}

/**
 * Inline markdown, safe in table cells and list items: one line; markdown punctuation backslash-escaped
 * (`\|` is how a GFM table cell holds a pipe); `&`, `<`, `>` as entities so nothing becomes a tag; a
 * zero-width space after `@`, `#`, `GH`, a URL scheme and `www` so engine text neither pings people nor links.
 * An `@` after a word character is left alone: GitHub mentions only an `@` at the start or after a non-word
 * character (`(?:^|\W)@`, html-pipeline's lib/html_pipeline/node_filter/mention_filter.rb), so an address's `a@b`
 * or a sweep point's `chat@c4` pings nobody, and a copied id must not carry an invisible character.
 */
export function escapeText(text: string): string {
  return (
    stripControl(text)
      .replace(/\s*\n\s*/g, ' ')
      .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
      .replace(/[&<>]/g, (c) => HTML[c])
      .replace(/(?<!\w)@(?=\w)|#(?=\d)/g, (c) => `${c}&#8203;`)
      // GitHub links bare URLs (`https://…`, `www.…`) and `GH-123` by itself; engine text must not become a link.
      .replace(/(?<=\b(?:https?|ftp)):(?=\/\/)/gi, ':&#8203;')
      .replace(/\b(www)\.(?=\w)/gi, '$1&#8203;.')
      .replace(/\b(GH)-(?=\d)/gi, '$1&#8203;-')
  )
}

/** Shortens to `max` characters with an ellipsis (before escaping, so entities are never cut in half). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`
}

/** Keeps the last `max` characters, starting at a line boundary when one is near. */
export function tail(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(-max)
  const newline = cut.indexOf('\n')
  return `…\n${newline >= 0 && newline < 200 ? cut.slice(newline + 1) : cut}`
}

/** A fenced code block whose fence is longer than any run of backticks inside, so the text cannot close it. */
export function codeBlock(text: string, lang = ''): string {
  const body = stripControl(text).replace(/\n+$/, '')
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${lang}\n${body}\n${fence}`
}

/** Inline code for short trusted-shape values (commit shas, hardware keys); falls back to escaped text. */
export function code(text: string): string {
  return /^[\w.\-/:@+]+$/.test(text) ? `\`${text}\`` : escapeText(text)
}

/** A link target we may print: http(s) without spaces, quotes, angle brackets or parentheses; otherwise none. */
export function safeUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\/[^\s()<>"'`]+$/.test(url) ? url : undefined
}

/** A collapsed section; the blank lines let GitHub render the markdown inside. */
export function details(summary: string, body: string): string {
  return `<details>\n<summary>${escapeHtml(summary)}</summary>\n\n${body}\n\n</details>`
}
