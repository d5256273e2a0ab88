/** Text helpers the quality checks share. */

/** Words (letters, digits, underscores) and single punctuation or symbol characters; whitespace separates and is dropped. */
export function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s]/gu) ?? []
}

/** Words only (letters, digits, underscores). */
export function wordTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? []
}

/** A short quoted form for messages: JSON string syntax (control characters visible), cut with `…` past `max` characters. */
export function quote(text: string, max: number): string {
  const chars = [...text]
  return JSON.stringify(chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text)
}
