/**
 * Quoting for `bash -c`: a word made only of characters the shell never treats specially stays as it is
 * (commands read as typed); anything else is single-quoted, each `'` written as `'\''`. Inside single quotes
 * bash expands nothing (Bash Reference Manual, 3.1.2.2 Single Quotes).
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
