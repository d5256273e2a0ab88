/**
 * One commit per update through the git data API: read the branch head, build every file from what
 * that head holds, then blobs → a tree on the head's tree → a commit whose parent is the head → a ref
 * update that must fast-forward (`force: false`). When another writer moved the branch in between,
 * GitHub answers 422 (409 on some routes): the files are re-read at the new head, rebuilt and
 * committed again, with jittered exponential backoff, a bounded number of times. Either every file
 * of an update lands or none does.
 * https://docs.github.com/en/rest/git/refs#update-a-reference
 */
import { httpStatus, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import { readFile, StoreError, wrap } from './github-files.js'

const MAX_DELAY_MS = 30_000

/** Waits `ms`, or less when `signal` fires: the request after it then fails on that signal. */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, signal?.aborted ? 0 : ms)
    signal?.addEventListener('abort', done, { once: true })
  })

/** What a build sees of the branch: files at one head commit. */
export interface Snapshot {
  head: string
  read(path: string): Promise<string | undefined>
  /** Every file path of the head's tree. */
  paths(): Promise<string[]>
}

export interface CommitOptions {
  request: GitHubRequest
  repo: RepoRef
  branch: string
  log: Logger
  maxRetries?: number
  backoffMs?: number
  /** The operation's deadline or the run's cancel: ends a backoff wait early. */
  signal?: AbortSignal
}

/** Builds the files from the current head and commits those that changed; returns the new commit's sha, or undefined when nothing changed. */
export async function commitFiles(
  options: CommitOptions,
  build: (snapshot: Snapshot) => Promise<Map<string, string>>,
  message: string,
): Promise<string | undefined> {
  const { branch, log } = options
  const maxRetries = options.maxRetries ?? 5
  const backoffMs = options.backoffMs ?? 500
  for (let attempt = 0; ; attempt++) {
    const { head, tree } = await headOf(options)
    const snapshot = snapshotAt(options, head, tree)
    const files = await build(snapshot)
    const changed = await changedFiles(snapshot, files)
    if (changed.size === 0) {
      log.debug(`${branch}: unchanged`)
      return undefined
    }
    const commit = await createCommit(options, tree, head, changed, message)
    try {
      await options.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
        ...options.repo,
        ref: `heads/${branch}`,
        sha: commit,
        force: false,
      })
      log.debug(`${branch}: ${commit.slice(0, 7)} on ${head.slice(0, 7)} (${[...changed.keys()].join(', ')})`)
      return commit
    } catch (error) {
      const status = httpStatus(error)
      if (status !== 409 && status !== 422)
        throw wrap(error, `${branch}: cannot move the branch to ${commit.slice(0, 7)}`)
      if (attempt >= maxRetries) {
        throw new StoreError(
          `${branch}: still conflicting after ${attempt + 1} attempts (HTTP ${status}); another writer keeps moving the branch`,
          status,
          { cause: error },
        )
      }
      // Jitter keeps parallel matrix jobs from retrying in lockstep.
      const delay = Math.min(MAX_DELAY_MS, backoffMs * 2 ** attempt) * (1 + Math.random() / 2)
      log.info(
        `${branch}: HTTP ${status} (the branch moved meanwhile), re-reading and retrying in ${Math.round(delay)} ms`,
      )
      await sleep(delay, options.signal)
    }
  }
}

async function headOf(options: CommitOptions): Promise<{ head: string; tree: string }> {
  const { request, repo, branch } = options
  try {
    const ref = await request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: `heads/${branch}` })
    const head = String(ref.data.object.sha)
    const commit = await request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: head })
    return { head, tree: String(commit.data.tree.sha) }
  } catch (error) {
    throw wrap(error, `branch ${branch}: cannot read its head`)
  }
}

function snapshotAt(options: CommitOptions, head: string, tree: string): Snapshot {
  const { request, repo, branch } = options
  const cache = new Map<string, Promise<string | undefined>>()
  return {
    head,
    read(path) {
      if (!cache.has(path))
        cache.set(
          path,
          readFile(request, repo, head, path).then((f) => f?.text),
        )
      return cache.get(path)!
    },
    async paths() {
      try {
        const answer = await request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
          ...repo,
          tree_sha: tree,
          recursive: '1',
        })
        const entries = answer.data.tree as Array<{ path?: string; type?: string }>
        return entries.filter((e) => e.type === 'blob' && typeof e.path === 'string').map((e) => e.path!)
      } catch (error) {
        throw wrap(error, `${branch}: cannot list the files of ${head.slice(0, 7)}`)
      }
    },
  }
}

async function changedFiles(snapshot: Snapshot, files: Map<string, string>): Promise<Map<string, string>> {
  const changed = new Map<string, string>()
  for (const [path, text] of files) if ((await snapshot.read(path)) !== text) changed.set(path, text)
  return changed
}

async function createCommit(
  options: CommitOptions,
  baseTree: string,
  parent: string,
  files: Map<string, string>,
  message: string,
): Promise<string> {
  const { request, repo, branch } = options
  try {
    const entries = []
    for (const [path, text] of files) {
      const blob = await request('POST /repos/{owner}/{repo}/git/blobs', {
        ...repo,
        content: Buffer.from(text, 'utf8').toString('base64'),
        encoding: 'base64',
      })
      entries.push({ path, mode: '100644' as const, type: 'blob' as const, sha: String(blob.data.sha) })
    }
    const tree = await request('POST /repos/{owner}/{repo}/git/trees', { ...repo, base_tree: baseTree, tree: entries })
    const commit = await request('POST /repos/{owner}/{repo}/git/commits', {
      ...repo,
      message,
      tree: String(tree.data.sha),
      parents: [parent],
    })
    return String(commit.data.sha)
  } catch (error) {
    throw wrap(error, `${branch}: cannot create the commit`)
  }
}
