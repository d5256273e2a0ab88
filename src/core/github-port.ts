/**
 * The slice of the GitHub REST API the store and the comment need, as a port:
 * the runner passes octokit's `request`, tests may pass octokit built on a loopback fake.
 * Non-2xx answers reject with an error carrying `status` (octokit's RequestError does).
 */
import { formatDuration } from './format.js'

export interface GitHubResponse {
  status: number
  data: any // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, string | number | undefined>
}

export type GitHubRequest = (route: string, params?: Record<string, unknown>) => Promise<GitHubResponse>

export interface RepoRef {
  owner: string
  repo: string
}

export interface GitHubApi {
  request: GitHubRequest
  repo: RepoRef
}

export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}

/**
 * How long the GitHub API may take. GitHub itself ends a REST request it takes more than 10 s to process
 * (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api#timeouts), so a request
 * with no answer after 30 s (10 s of processing, the rest for a 2 MiB history file over a slow runner link)
 * will not get one. An operation (the PR comment with its pages of comments, the baseline read, the baseline
 * write with its conflict retries and backoff) gets 4 requests' worth all told: the write's retries (5, with
 * at most ~23 s of backoff) fit well inside, a GitHub answering every request just before the bound does not.
 */
export interface ApiTimeouts {
  requestMs: number
  operationMs: number
}

export const API_TIMEOUTS: ApiTimeouts = { requestMs: 30_000, operationMs: 120_000 }

/**
 * A GitHub request that got no answer in time, or was cut short because the run was cancelled. It has no
 * `status`: it is not an HTTP answer (octokit reports an aborted fetch as status 500, which it is not).
 */
export class ApiAbortError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ApiAbortError'
  }
}

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted')

/**
 * The port with every request bounded: aborted after `timeoutMs`, or as soon as `signal` fires (and never
 * sent once it has). The abort reaches the socket through octokit's `request.signal`
 * (https://github.com/octokit/request.js#request, `options.request.signal`, handed to fetch), and the
 * promise settles at once whether or not the transport honours it.
 */
export function boundedRequest(request: GitHubRequest, timeoutMs: number, signal?: AbortSignal): GitHubRequest {
  return (route, params = {}) => {
    if (signal?.aborted) return Promise.reject(new ApiAbortError(`${route}: ${reasonOf(signal)}`))
    const controller = new AbortController()
    let stop!: (error: ApiAbortError) => void
    const stopped = new Promise<never>((_, reject) => {
      stop = (error) => {
        reject(error)
        controller.abort(error)
      }
    })
    const timer = setTimeout(
      () => stop(new ApiAbortError(`${route}: no answer within ${formatDuration(timeoutMs)}`)),
      timeoutMs,
    )
    const onAbort = () => stop(new ApiAbortError(`${route}: ${reasonOf(signal!)}`))
    signal?.addEventListener('abort', onAbort, { once: true })
    const options = (params.request ?? {}) as Record<string, unknown>
    const sent = new Promise<GitHubResponse>((resolve) =>
      resolve(request(route, { ...params, request: { ...options, signal: controller.signal } })),
    )
    return Promise.race([sent, stopped]).finally(() => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    })
  }
}

/** One operation's view of the API: its requests, and the signal that ends its waits (a backoff). */
export interface OperationApi extends GitHubApi {
  signal: AbortSignal
}

/** The run's access to the GitHub API: every call goes through an operation with its own deadline. */
export interface BoundedGitHub {
  repo: RepoRef
  /**
   * Runs one operation (`what`: "the PR comment"): each request within the request bound, all of them
   * within the operation bound, none once the run is cancelled.
   */
  operation<T>(what: string, run: (api: OperationApi) => Promise<T>): Promise<T>
}

export function boundedGitHub(
  api: GitHubApi,
  signal: AbortSignal | undefined,
  timeouts: ApiTimeouts = API_TIMEOUTS,
): BoundedGitHub {
  return {
    repo: api.repo,
    async operation(what, run) {
      const deadline = new AbortController()
      const timer = setTimeout(
        () => deadline.abort(new Error(`${what} took longer than ${formatDuration(timeouts.operationMs)}`)),
        timeouts.operationMs,
      )
      const onAbort = () => deadline.abort(signal!.reason)
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const request = boundedRequest(api.request, timeouts.requestMs, deadline.signal)
        return await run({ request, repo: api.repo, signal: deadline.signal })
      } finally {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
    },
  }
}

/**
 * Every item of a list endpoint, page after page (GitHub REST "Using pagination": the `Link` header's `rel="next"`;
 * without a `Link` header, a full page means there may be another), at most `maxPages` pages of `per_page` 100.
 */
export async function listAllPages(
  request: GitHubRequest,
  route: string,
  params: Record<string, unknown>,
  maxPages: number,
): Promise<unknown[]> {
  const perPage = 100
  const items: unknown[] = []
  for (let page = 1; page <= maxPages; page++) {
    const res = await request(route, { ...params, per_page: perPage, page })
    const data: unknown[] = Array.isArray(res.data) ? res.data : []
    items.push(...data)
    const link = res.headers.link
    const more = typeof link === 'string' && link !== '' ? /rel="next"/.test(link) : data.length === perPage
    if (!more || data.length === 0) break
  }
  return items
}

/** Whether a comment's or an issue's author is a bot (the workflow's token writes as `github-actions[bot]`). */
export function isBotUser(user: unknown): boolean {
  if (typeof user !== 'object' || user === null) return false
  const { type, login } = user as { type?: unknown; login?: unknown }
  return type === 'Bot' || login === 'github-actions[bot]'
}
