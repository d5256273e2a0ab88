/**
 * The slice of the GitHub REST API the store and the comment need, as a port:
 * the runner passes octokit's `request`, tests may pass octokit built on a loopback fake.
 * Non-2xx answers reject with an error carrying `status` (octokit's RequestError does).
 */
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

export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}
