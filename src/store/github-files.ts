/** Reading single files of the data branch (contents API, git blobs past 1 MB) and creating the branch (git data API). */
import { httpStatus, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import { errorMessage } from '../core/errors.js'

/** A store operation failed; `status` is the HTTP status when GitHub answered one. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'StoreError'
  }
}

export interface StoredFile {
  /** Blob sha, needed to update the file. */
  sha: string
  text: string
}

export function wrap(error: unknown, what: string): StoreError {
  const status = httpStatus(error)
  return new StoreError(`${what}: ${status ? `HTTP ${status} ` : ''}${errorMessage(error)}`, status, { cause: error })
}

/** Reads a file of `branch`; undefined when the file or the branch does not exist. */
export async function readFile(
  request: GitHubRequest,
  repo: RepoRef,
  branch: string,
  path: string,
): Promise<StoredFile | undefined> {
  let data: { type?: string; sha: string; content?: string; encoding?: string }
  try {
    data = (await request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path, ref: branch })).data
  } catch (error) {
    if (httpStatus(error) === 404) return undefined
    throw wrap(error, `${branch}:${path}: cannot read`)
  }
  if (Array.isArray(data) || data.type !== 'file') throw new StoreError(`${branch}:${path}: is not a file`)
  if (data.encoding === 'base64' && data.content)
    return { sha: data.sha, text: Buffer.from(data.content, 'base64').toString('utf8') }
  // Over 1 MB the contents API leaves `content` empty (`encoding: none`); the git blob API serves up to 100 MB.
  try {
    const blob = await request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { ...repo, file_sha: data.sha })
    const text = Buffer.from(String(blob.data.content), blob.data.encoding === 'base64' ? 'base64' : 'utf8').toString(
      'utf8',
    )
    return { sha: data.sha, text }
  } catch (error) {
    throw wrap(error, `${branch}:${path}: cannot read blob ${data.sha}`)
  }
}

/** Names of the folders at the root of `branch` (the contents API lists a directory as an array); none without the branch. */
export async function listFolders(request: GitHubRequest, repo: RepoRef, branch: string): Promise<string[]> {
  let data: unknown
  try {
    data = (await request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '', ref: branch })).data
  } catch (error) {
    if (httpStatus(error) === 404) return []
    throw wrap(error, `${branch}: cannot list`)
  }
  if (!Array.isArray(data)) return []
  return data
    .filter((e): e is { type: string; name: string } => e?.type === 'dir' && typeof e.name === 'string')
    .map((e) => e.name)
    .filter((name) => !name.startsWith('.'))
    .sort()
}

const README = (branch: string): string =>
  `# ${branch}\n\nBenchmark baselines and history written by llm-bench-gate: \`<hardware>/baseline.json\`, \`<hardware>/history.json\`, ` +
  'the dashboard `<hardware>/index.html` and the list of hardware keys `index.html` (serve this branch with GitHub Pages to read them).\n' +
  'This branch has no common history with the code; do not merge it.\n'

/**
 * Makes sure `branch` exists, creating it as an orphan (a commit without parents holding a README)
 * through the git data API. Returns true when this call created it.
 */
export async function ensureBranch(request: GitHubRequest, repo: RepoRef, branch: string): Promise<boolean> {
  try {
    await request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: `heads/${branch}` })
    return false
  } catch (error) {
    if (httpStatus(error) !== 404) throw wrap(error, `branch ${branch}: cannot look it up`)
  }
  try {
    const blob = await request('POST /repos/{owner}/{repo}/git/blobs', {
      ...repo,
      content: README(branch),
      encoding: 'utf-8',
    })
    const tree = await request('POST /repos/{owner}/{repo}/git/trees', {
      ...repo,
      tree: [{ path: 'README.md', mode: '100644', type: 'blob', sha: blob.data.sha }],
    })
    const commit = await request('POST /repos/{owner}/{repo}/git/commits', {
      ...repo,
      message: `Create ${branch} for benchmark baselines`,
      tree: tree.data.sha,
      parents: [],
    })
    await request('POST /repos/{owner}/{repo}/git/refs', { ...repo, ref: `refs/heads/${branch}`, sha: commit.data.sha })
    return true
  } catch (error) {
    // 422 on the ref: a concurrent writer created the branch first, which is just as good.
    if (httpStatus(error) === 422 && /already exists/i.test(errorMessage(error))) return false
    throw wrap(error, `branch ${branch}: cannot create it`)
  }
}
