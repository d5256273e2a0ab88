/**
 * The sticky PR comment: one per PR and config, found by a hidden marker across every page of the
 * PR's issue comments (GitHub REST API "List issue comments", paginated by the `Link` header),
 * updated in place, else created. Errors keep their HTTP status; the pipeline turns a 403 (fork PR,
 * read-only token) into a warning.
 */
import { httpStatus, isBotUser, listAllPages, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import { commentMarker } from '../report/index.js'

export interface UpsertOptions {
  request: GitHubRequest
  repo: RepoRef
  issueNumber: number
  configPath: string
  body: string
}

/** 50 pages of 100: a PR with more comments than that is not worth more requests. */
const MAX_PAGES = 50

interface IssueComment {
  id: number
  body?: string | null
  html_url: string
  user?: { login?: string; type?: string } | null
}

const isBot = (c: IssueComment): boolean => isBotUser(c.user)

/** Every comment carrying the marker, oldest first, following pagination until there is no next page. */
async function findMarked(
  request: GitHubRequest,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
): Promise<IssueComment[]> {
  const route = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments'
  const items = (await listAllPages(
    request,
    route,
    { ...repo, issue_number: issueNumber },
    MAX_PAGES,
  )) as IssueComment[]
  return items.filter((c) => typeof c.body === 'string' && c.body.includes(marker))
}

export async function upsertComment(options: UpsertOptions): Promise<{ url: string; action: 'created' | 'updated' }> {
  const { request, repo, issueNumber } = options
  const marker = commentMarker(options.configPath)
  const body = options.body.includes(marker) ? options.body : `${marker}\n${options.body}`
  const marked = await findMarked(request, repo, issueNumber, marker)
  // Prefer the newest bot comment: a person quoting our marker must not capture the report.
  const target = marked.filter(isBot).at(-1) ?? marked.at(-1)
  if (target) {
    try {
      const res = await request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        ...repo,
        comment_id: target.id,
        body,
      })
      return { url: String(res.data.html_url), action: 'updated' }
    } catch (error) {
      // Someone else's comment (a token can only edit its own): fall through and post ours.
      const status = httpStatus(error)
      if (isBot(target) || (status !== 403 && status !== 404)) throw error
    }
  }
  const res = await request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...repo,
    issue_number: issueNumber,
    body,
  })
  return { url: String(res.data.html_url), action: 'created' }
}
