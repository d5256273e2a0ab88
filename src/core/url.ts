/** Base URLs as the matrix file gives them (`http://127.0.0.1:8000/`), and the paths engines add to them. */

/** The base without trailing slashes, so paths join with exactly one. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}

/** `base` + `path`, one slash between them whatever either side has. */
export function joinUrl(base: string, path: string): string {
  return trimSlash(base) + (path.startsWith('/') ? path : `/${path}`)
}
