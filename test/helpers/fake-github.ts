/**
 * A loopback fake of the slice of the GitHub REST API the action uses, in memory, for one repository:
 *
 *   GET   /repos/{o}/{r}/issues/{n}/comments?per_page&page   ascending ids, `Link` rel="next"/"last"/"prev"/"first"
 *   POST  /repos/{o}/{r}/issues/{n}/comments {body}           201; 422 when body > 65,536 characters
 *   GET   /repos/{o}/{r}/issues/comments/{id}
 *   PATCH /repos/{o}/{r}/issues/comments/{id} {body}          200; 403 when the comment is not the actor's
 *   GET   /repos/{o}/{r}/contents/{path}?ref                  {sha, content (base64, 60-char lines), encoding}; a 5xx when injected;
 *                                                             files over `largeFileBytes`: content '' + encoding 'none'
 *   PUT   /repos/{o}/{r}/contents/{path} {message, content, branch, sha}
 *                                                             201 created / 200 updated; 409 stale sha;
 *                                                             422 sha missing for an existing file; 404 unknown branch
 *   GET   /repos/{o}/{r}/pulls/{n}/files?per_page&page         {filename, status, previous_filename?}; at most 3,000 files listed,
 *                                                             `Link` rel="next"/"last"; a fault status when injected
 *   GET   /repos/{o}/{r}/git/ref/{ref}                        e.g. heads/main; 404 when missing
 *   POST  /repos/{o}/{r}/git/refs {ref, sha}                  201; 422 `Reference already exists`
 *   PATCH /repos/{o}/{r}/git/refs/{ref} {sha, force}          200; 422 `Update is not a fast forward` unless force
 *   POST|GET /repos/{o}/{r}/git/blobs, git/trees, git/commits (parents may be empty: an orphan commit)
 *   GET   /repos/{o}/{r}/pages                              the Pages site set in `state.pages`; 404 when none
 *   GET   /repos/{o}/{r}/issues?state&labels&per_page&page   newest first; `state` open (default), closed or all; `labels`
 *                                                             comma-separated, all required; `Link` like the comments;
 *                                                             PRs seeded with `pull: true` listed with a `pull_request` key
 *   POST  /repos/{o}/{r}/issues {title, body, labels}         201 {number, html_url, …}; numbers from 100 up (PR 7 stays clear);
 *                                                             422 without a title or with a body > 65,536 characters
 *   GET   /repos/{o}/{r}/issues/{n}                           404 when no such issue
 *   PATCH /repos/{o}/{r}/issues/{n} {title, body, state, state_reason}
 *                                                             200; 422 for another state or state_reason
 *   GET   /repos/{o}/{r}/commits/{sha}/pulls                  what `state.commitPulls` holds for the sha, [] otherwise
 *
 * Faults (`inject`): statuses on chosen routes, and requests that are read but never answered (`hang`), as a
 * GitHub that accepts the connection and then says nothing. `forbidComments` covers the issue routes too: a
 * read-only token may neither comment nor open or edit an issue.
 *
 * Simplifications (never visible to a client of those routes): trees are flat maps of full paths to blob
 * shas, and tree/commit shas are content hashes but not git's. Blob shas are git's.
 * The comment and issue author of every write is `actor` (default `github-actions[bot]`, a Bot); issues share the
 * numbering space of PRs for comments (`issues/{n}/comments` works for both).
 *
 *   const gh = await startFakeGitHub()
 *   const octokit = getOctokit('token', { baseUrl: gh.url })   // or GITHUB_API_URL=gh.url for a subprocess
 *   try { … gh.state.readFile('llm-bench-data', 'cpu/baseline.json') … } finally { await gh.close() }
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeGitHubOptions {
  owner?: string
  repo?: string
  defaultBranch?: string
  /** Login that authors comments created through the API. */
  actor?: string
  /** Files larger than this come back from the contents API with `content: ''` and `encoding: 'none'`. */
  largeFileBytes?: number
}

export interface FakeUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}

export interface FakeComment {
  id: number
  issue: number
  body: string
  user: FakeUser
  created_at: string
  updated_at: string
}

export interface PullFile {
  filename: string
  status?: 'added' | 'modified' | 'removed' | 'renamed'
  previous_filename?: string
}

export interface FakeIssue {
  number: number
  title: string
  body: string
  labels: string[]
  state: 'open' | 'closed'
  state_reason: 'completed' | 'not_planned' | 'reopened' | null
  user: FakeUser
  /** Listed by `GET issues` with a `pull_request` key, as GitHub lists PRs among issues. */
  pull?: boolean
  created_at: string
  updated_at: string
  closed_at: string | null
}

/** A PR as `commits/{sha}/pulls` lists it. */
export interface CommitPull {
  number: number
  html_url: string
  title: string
  merge_commit_sha: string | null
  merged_at: string | null
}

export interface FakeCommit {
  sha: string
  tree: string
  parents: string[]
  message: string
  date: string
}

export interface LoggedRequest {
  method: string
  /** Decoded path, e.g. `/repos/o/r/contents/cpu/baseline.json`. */
  path: string
  query: Record<string, string>
  status: number
  body?: unknown
  authorization?: string
}

export interface FakeGitHub {
  /** Base URL for `getOctokit(token, { baseUrl })` or `GITHUB_API_URL`. */
  url: string
  state: FakeState
  /** Fault injection; each call replaces the previous setting of that fault. */
  inject: {
    /** The next `count` contents PUTs fail with `status` (409 default); `before` runs first (e.g. a concurrent write). */
    failContentsPuts(count: number, options?: { status?: 409 | 422; before?: (path: string) => void }): void
    /** Contents GETs of paths ending in `suffix` fail with `status` (a 5xx: GitHub having a bad moment) until called with false. */
    failContentsGets(fault: { status: number; suffix: string } | false): void
    /**
     * 403 `Resource not accessible by integration` on comment and issue writes (`write`), on every comment and
     * issue route (`all`), or not at all.
     */
    forbidComments(scope: 'write' | 'all' | false): void
    /** `pulls/{n}/files` answers `status` (a 5xx, a 403) until called with false. */
    failPullFiles(status: number | false): void
    /** `before` runs ahead of each of the next `count` ref updates (e.g. another writer's commit landing first). */
    beforeRefUpdates(count: number, before: (ref: string) => void): void
    /** Every write to the git data or contents API (POST, PATCH, PUT) answers `status` (a 5xx) until called with false. */
    failWrites(status: number | false): void
    /**
     * Requests whose method is `method` and whose path (after `/repos/{o}/{r}`) matches `path` are read and
     * logged (status 0) but never answered; `onHang` runs as each arrives. Until called with false.
     */
    hang(fault: { method: string; path: RegExp; onHang?: (request: LoggedRequest) => void } | false): void
  }
  /** Adds `count` comments by another user (body `unrelated comment <i>` unless given) to an issue. */
  seedComments(
    issue: number,
    count: number,
    options?: { body?: string; login?: string; type?: FakeUser['type'] },
  ): FakeComment[]
  close(): Promise<void>
}

const DOCS = 'https://docs.github.com/rest'
const COMMENT_MAX = 65_536

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
const sha1 = (data: string | Buffer): string => createHash('sha1').update(data).digest('hex')
/** GitHub wraps base64 content at 60 characters. */
const base64Lines = (buf: Buffer): string =>
  (buf.toString('base64').match(/.{1,60}/g) ?? []).map((l) => l + '\n').join('')

export class FakeState {
  readonly blobs = new Map<string, Buffer>()
  readonly trees = new Map<string, Map<string, string>>()
  readonly commits = new Map<string, FakeCommit>()
  /** Full ref name (`refs/heads/main`) → commit sha. */
  readonly refs = new Map<string, string>()
  readonly comments: FakeComment[] = []
  /** PR number → the files it changes (`pulls/{n}/files`). */
  readonly pullFiles = new Map<number, PullFile[]>()
  readonly log: LoggedRequest[] = []
  /** The repository's GitHub Pages site, if it has one. */
  pages?: { html_url: string; source?: { branch: string; path: string } }
  readonly issues: FakeIssue[] = []
  /** Commit sha → the PRs associated with it (`commits/{sha}/pulls`). */
  readonly commitPulls = new Map<string, CommitPull[]>()
  private nextId = 1000
  private nextIssue = 100
  private commitCount = 0
  private readonly users = new Map<string, FakeUser>()

  constructor(
    readonly owner: string,
    readonly repo: string,
    readonly defaultBranch: string,
    readonly actor: string,
  ) {
    const readme = this.putBlob(Buffer.from(`# ${repo}\n`))
    this.refs.set(
      `refs/heads/${defaultBranch}`,
      this.putCommit(this.putTree(new Map([['README.md', readme]])), [], 'Initial commit'),
    )
  }

  putBlob(content: Buffer): string {
    const sha = sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    this.blobs.set(sha, content)
    return sha
  }

  putTree(files: Map<string, string>): string {
    const sha = sha1('tree ' + JSON.stringify([...files].sort(([a], [b]) => (a < b ? -1 : 1))))
    this.trees.set(sha, new Map(files))
    return sha
  }

  putCommit(tree: string, parents: string[], message: string): string {
    const sha = sha1(`commit ${++this.commitCount} ${JSON.stringify({ tree, parents, message })}`)
    this.commits.set(sha, { sha, tree, parents, message, date: now() })
    return sha
  }

  user(login: string, type: FakeUser['type'] = login.endsWith('[bot]') ? 'Bot' : 'User'): FakeUser {
    let user = this.users.get(login)
    if (!user) this.users.set(login, (user = { login, id: 41_000 + this.users.size, type }))
    return user
  }

  /** Head commit of a branch, or undefined. */
  head(branch: string): string | undefined {
    return this.refs.get(`refs/heads/${branch}`)
  }

  /** A branch name, `heads/<branch>`, `refs/heads/<branch>` or a commit sha → commit sha. */
  resolve(ref: string): string | undefined {
    if (this.commits.has(ref)) return ref
    return this.refs.get(ref.startsWith('refs/') ? ref : ref.startsWith('heads/') ? `refs/${ref}` : `refs/heads/${ref}`)
  }

  files(commitSha: string): Map<string, string> {
    return this.trees.get(this.commits.get(commitSha)!.tree)!
  }

  readFile(branch: string, path: string): string | undefined {
    const head = this.head(branch)
    const blob = head === undefined ? undefined : this.files(head).get(path)
    return blob === undefined ? undefined : this.blobs.get(blob)!.toString('utf8')
  }

  /** Commits a file on an existing branch as another writer would; returns the blob sha. */
  writeFile(branch: string, path: string, text: string, message = `update ${path}`): string {
    const head = this.head(branch)
    if (head === undefined) throw new Error(`fake-github: branch ${branch} does not exist`)
    const blob = this.putBlob(Buffer.from(text))
    const files = new Map(this.files(head)).set(path, blob)
    this.refs.set(`refs/heads/${branch}`, this.putCommit(this.putTree(files), [head], message))
    return blob
  }

  addComment(issue: number, body: string, user: FakeUser): FakeComment {
    const at = now()
    const comment = { id: this.nextId++, issue, body, user, created_at: at, updated_at: at }
    this.comments.push(comment)
    return comment
  }

  commentsOn(issue: number): FakeComment[] {
    return this.comments.filter((c) => c.issue === issue)
  }

  /** Opens an issue (the API's way, or a person's when `user` is someone else); `pull` makes it list as a PR. */
  addIssue(
    fields: { title: string; body?: string; labels?: string[]; pull?: boolean },
    user: FakeUser = this.user(this.actor),
  ): FakeIssue {
    const at = now()
    const issue: FakeIssue = {
      number: this.nextIssue++,
      title: fields.title,
      body: fields.body ?? '',
      labels: fields.labels ?? [],
      state: 'open',
      state_reason: null,
      user,
      pull: fields.pull,
      created_at: at,
      updated_at: at,
      closed_at: null,
    }
    this.issues.push(issue)
    return issue
  }

  issue(number: number): FakeIssue | undefined {
    return this.issues.find((i) => i.number === number)
  }
}

interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
}

interface Ctx {
  method: string
  path: string
  query: URLSearchParams
  body: Record<string, unknown>
  origin: string
  state: FakeState
  faults: Faults
  largeFileBytes: number
}

interface Faults {
  putFailures: number
  putStatus: 409 | 422
  putBefore?: (path: string) => void
  comments: 'write' | 'all' | false
  gets: { status: number; suffix: string } | false
  pullFiles?: number | false
  refUpdates: number
  refBefore?: (ref: string) => void
  writes: number | false
  hang: { method: string; path: RegExp; onHang?: (request: LoggedRequest) => void } | false
}

type Handler = (ctx: Ctx, m: RegExpMatchArray) => Reply

const fail = (status: number, message: string, doc: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { message, documentation_url: `${DOCS}/${doc}`, status: String(status), ...extra },
})
const notFound = (doc: string): Reply => fail(404, 'Not Found', doc)
const forbidden = (doc: string): Reply => fail(403, 'Resource not accessible by integration', doc)

/** `issues` for an issue opened in the fake, `pull` for anything else (the PRs the tests comment on). */
function pageOf(ctx: Ctx, number: number): 'issues' | 'pull' {
  const issue = ctx.state.issue(number)
  return issue && !issue.pull ? 'issues' : 'pull'
}

function commentJson(ctx: Ctx, c: FakeComment): unknown {
  const repoApi = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}`
  return {
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${repoApi}/issues/comments/${c.id}`,
    html_url: `${ctx.origin}/${ctx.state.owner}/${ctx.state.repo}/${pageOf(ctx, c.issue)}/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${repoApi}/issues/${c.issue}`,
    body: c.body,
    user: { ...c.user, node_id: `U_${c.user.id}` },
    created_at: c.created_at,
    updated_at: c.updated_at,
    author_association: c.user.type === 'Bot' ? 'NONE' : 'CONTRIBUTOR',
  }
}

function bodyTooLong(doc: string): Reply {
  const error = {
    resource: 'IssueComment',
    code: 'custom',
    field: 'body',
    message: `body is too long (maximum is ${COMMENT_MAX} characters)`,
  }
  return fail(422, 'Validation Failed', doc, { errors: [error] })
}

function listComments(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/comments#list-issue-comments'
  if (ctx.faults.comments === 'all') return forbidden(doc)
  const issue = Number(m[1])
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 30) || 30))
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1)
  const all = ctx.state.commentsOn(issue).sort((a, b) => a.id - b.id)
  const last = Math.max(1, Math.ceil(all.length / perPage))
  const link = (p: number, rel: string): string =>
    `<${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/issues/${issue}/comments?per_page=${perPage}&page=${p}>; rel="${rel}"`
  const rels: string[] = []
  if (page > 1) rels.push(link(page - 1, 'prev'))
  if (page < last) rels.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) rels.push(link(1, 'first'))
  const slice = all.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(ctx, c))
  return { status: 200, body: slice, headers: rels.length ? { link: rels.join(', ') } : {} }
}

function createComment(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/comments#create-an-issue-comment'
  if (ctx.faults.comments) return forbidden(doc)
  if (typeof ctx.body.body !== 'string') return fail(422, 'Invalid request.\n\n"body" wasn\'t supplied.', doc)
  if (ctx.body.body.length > COMMENT_MAX) return bodyTooLong(doc)
  const comment = ctx.state.addComment(Number(m[1]), ctx.body.body, ctx.state.user(ctx.state.actor))
  return { status: 201, body: commentJson(ctx, comment) }
}

function getComment(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/comments#get-an-issue-comment'
  if (ctx.faults.comments === 'all') return forbidden(doc)
  const comment = ctx.state.comments.find((c) => c.id === Number(m[1]))
  return comment ? { status: 200, body: commentJson(ctx, comment) } : notFound(doc)
}

function updateComment(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/comments#update-an-issue-comment'
  if (ctx.faults.comments) return forbidden(doc)
  const comment = ctx.state.comments.find((c) => c.id === Number(m[1]))
  if (!comment) return notFound(doc)
  // An installation token may not edit someone else's comment.
  if (comment.user.login !== ctx.state.actor) return forbidden(doc)
  if (typeof ctx.body.body !== 'string') return fail(422, 'Invalid request.\n\n"body" wasn\'t supplied.', doc)
  if (ctx.body.body.length > COMMENT_MAX) return bodyTooLong(doc)
  comment.body = ctx.body.body
  comment.updated_at = now()
  return { status: 200, body: commentJson(ctx, comment) }
}

function contentJson(ctx: Ctx, path: string, blob: string, ref: string, withContent: boolean): Record<string, unknown> {
  const { owner, repo } = ctx.state
  const buf = ctx.state.blobs.get(blob)!
  const large = buf.length > ctx.largeFileBytes
  const api = `${ctx.origin}/repos/${owner}/${repo}`
  const json: Record<string, unknown> = {
    type: 'file',
    name: path.split('/').pop(),
    path,
    sha: blob,
    size: buf.length,
    url: `${api}/contents/${path}?ref=${ref}`,
    git_url: `${api}/git/blobs/${blob}`,
    html_url: `${ctx.origin}/${owner}/${repo}/blob/${ref}/${path}`,
    download_url: `${ctx.origin}/raw/${owner}/${repo}/${ref}/${path}`,
  }
  if (withContent) Object.assign(json, { content: large ? '' : base64Lines(buf), encoding: large ? 'none' : 'base64' })
  return json
}

function getContents(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'repos/contents#get-repository-content'
  const path = m[1].replace(/\/+$/, '')
  if (ctx.faults.gets && path.endsWith(ctx.faults.gets.suffix)) return fail(ctx.faults.gets.status, 'Server Error', doc)
  const ref = ctx.query.get('ref') ?? ctx.state.defaultBranch
  const commit = ctx.state.resolve(ref)
  if (commit === undefined) return fail(404, `No commit found for the ref ${ref}`, doc)
  const files = ctx.state.files(commit)
  const blob = files.get(path)
  if (blob !== undefined) return { status: 200, body: contentJson(ctx, path, blob, ref, true) }
  const prefix = path === '' ? '' : path + '/'
  const names = new Map<string, Record<string, unknown>>()
  for (const [p, b] of files) {
    if (!p.startsWith(prefix)) continue
    const rest = p.slice(prefix.length)
    const name = rest.split('/')[0]
    if (rest.includes('/'))
      names.set(name, { type: 'dir', name, path: prefix + name, sha: sha1(prefix + name), size: 0 })
    else names.set(name, contentJson(ctx, p, b, ref, false))
  }
  return names.size ? { status: 200, body: [...names.values()] } : notFound(doc)
}

function commitJson(ctx: Ctx, c: FakeCommit): unknown {
  const api = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/git`
  const person = {
    name: 'github-actions[bot]',
    email: '41898282+github-actions[bot]@users.noreply.github.com',
    date: c.date,
  }
  return {
    sha: c.sha,
    node_id: `C_${c.sha}`,
    url: `${api}/commits/${c.sha}`,
    html_url: `${ctx.origin}/${ctx.state.owner}/${ctx.state.repo}/commit/${c.sha}`,
    author: person,
    committer: person,
    message: c.message,
    tree: { sha: c.tree, url: `${api}/trees/${c.tree}` },
    parents: c.parents.map((p) => ({ sha: p, url: `${api}/commits/${p}` })),
    verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
  }
}

function putContents(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'repos/contents#create-or-update-file-contents'
  const path = m[1]
  const { message, content, sha } = ctx.body
  if (typeof message !== 'string') return fail(422, 'Invalid request.\n\n"message" wasn\'t supplied.', doc)
  if (typeof content !== 'string') return fail(422, 'Invalid request.\n\n"content" wasn\'t supplied.', doc)
  const branch = typeof ctx.body.branch === 'string' ? ctx.body.branch : ctx.state.defaultBranch
  if (ctx.state.head(branch) === undefined) return fail(404, `Branch ${branch} not found`, doc)
  if (ctx.faults.putFailures > 0) {
    ctx.faults.putFailures--
    ctx.faults.putBefore?.(path)
    if (ctx.faults.putStatus === 422) return fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.', doc)
    return fail(409, `${path} does not match ${String(sha ?? '')}`, doc)
  }
  const tip = ctx.state.head(branch)! // re-read: the `before` hook may have moved it
  const current = ctx.state.files(tip).get(path)
  if (current !== undefined && sha === undefined) return fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.', doc)
  // A sha for a file that is not there is as stale as a wrong one.
  if (sha !== undefined && sha !== current) return fail(409, `${path} does not match ${String(sha)}`, doc)
  const blob = ctx.state.putBlob(Buffer.from(content, 'base64'))
  const files = new Map(ctx.state.files(tip)).set(path, blob)
  const commit = ctx.state.putCommit(ctx.state.putTree(files), [tip], message)
  ctx.state.refs.set(`refs/heads/${branch}`, commit)
  const body = {
    content: contentJson(ctx, path, blob, branch, false),
    commit: commitJson(ctx, ctx.state.commits.get(commit)!),
  }
  return { status: current === undefined ? 201 : 200, body }
}

function refJson(ctx: Ctx, ref: string, sha: string): unknown {
  const api = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/git`
  return {
    ref,
    node_id: `REF_${sha1(ref)}`,
    url: `${api}/${ref}`,
    object: { sha, type: 'commit', url: `${api}/commits/${sha}` },
  }
}

function getRef(ctx: Ctx, m: RegExpMatchArray): Reply {
  const ref = `refs/${m[1]}`
  const sha = ctx.state.refs.get(ref)
  return sha === undefined ? notFound('git/refs#get-a-reference') : { status: 200, body: refJson(ctx, ref, sha) }
}

function createRef(ctx: Ctx): Reply {
  const doc = 'git/refs#create-a-reference'
  const { ref, sha } = ctx.body
  if (typeof ref !== 'string' || !/^refs\/[^/]+\/.+/.test(ref)) return fail(422, 'Reference name is invalid', doc)
  if (typeof sha !== 'string' || !ctx.state.commits.has(sha)) return fail(422, 'Object does not exist', doc)
  if (ctx.state.refs.has(ref)) return fail(422, 'Reference already exists', doc)
  ctx.state.refs.set(ref, sha)
  return { status: 201, body: refJson(ctx, ref, sha) }
}

/** True when `ancestor` is `sha` or reachable from it through parents. */
function reaches(state: FakeState, sha: string, ancestor: string): boolean {
  const seen = new Set<string>()
  const queue = [sha]
  while (queue.length) {
    const next = queue.pop()!
    if (next === ancestor) return true
    if (seen.has(next)) continue
    seen.add(next)
    queue.push(...(state.commits.get(next)?.parents ?? []))
  }
  return false
}

function updateRef(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'git/refs#update-a-reference'
  const ref = `refs/${m[1]}`
  if (ctx.faults.refUpdates > 0) {
    ctx.faults.refUpdates--
    ctx.faults.refBefore?.(ref)
  }
  const current = ctx.state.refs.get(ref)
  const { sha, force = false } = ctx.body
  if (current === undefined) return fail(422, 'Reference does not exist', doc)
  if (typeof sha !== 'string' || !ctx.state.commits.has(sha)) return fail(422, 'Object does not exist', doc)
  if (!force && !reaches(ctx.state, sha, current)) return fail(422, 'Update is not a fast forward', doc)
  ctx.state.refs.set(ref, sha)
  return { status: 200, body: refJson(ctx, ref, sha) }
}

function blobJson(ctx: Ctx, sha: string): Record<string, unknown> {
  const buf = ctx.state.blobs.get(sha)!
  const url = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/git/blobs/${sha}`
  return { sha, node_id: `B_${sha}`, size: buf.length, url, content: base64Lines(buf), encoding: 'base64' }
}

function createBlob(ctx: Ctx): Reply {
  const { content, encoding = 'utf-8' } = ctx.body
  if (typeof content !== 'string')
    return fail(422, 'Invalid request.\n\n"content" wasn\'t supplied.', 'git/blobs#create-a-blob')
  const sha = ctx.state.putBlob(Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8'))
  return { status: 201, body: { sha, url: blobJson(ctx, sha).url } }
}

function getBlob(ctx: Ctx, m: RegExpMatchArray): Reply {
  return ctx.state.blobs.has(m[1]) ? { status: 200, body: blobJson(ctx, m[1]) } : notFound('git/blobs#get-a-blob')
}

function treeJson(ctx: Ctx, sha: string): unknown {
  const api = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/git`
  const tree = [...ctx.state.trees.get(sha)!].map(([path, blob]) => ({
    path,
    mode: '100644',
    type: 'blob',
    sha: blob,
    size: ctx.state.blobs.get(blob)!.length,
    url: `${api}/blobs/${blob}`,
  }))
  return { sha, url: `${api}/trees/${sha}`, tree, truncated: false }
}

function createTree(ctx: Ctx): Reply {
  const doc = 'git/trees#create-a-tree'
  const { tree, base_tree: base } = ctx.body
  if (!Array.isArray(tree)) return fail(422, 'Invalid request.\n\n"tree" wasn\'t supplied.', doc)
  if (base !== undefined && !ctx.state.trees.has(String(base)))
    return fail(422, 'base_tree is not a valid tree oid', doc)
  const files = new Map(base === undefined ? [] : ctx.state.trees.get(String(base))!)
  for (const entry of tree as Array<Record<string, unknown>>) {
    const path = String(entry.path ?? '')
    if (entry.sha === null) files.delete(path)
    else if (typeof entry.content === 'string') files.set(path, ctx.state.putBlob(Buffer.from(entry.content)))
    else if (typeof entry.sha === 'string' && ctx.state.blobs.has(entry.sha)) files.set(path, entry.sha)
    else return fail(422, `tree.sha ${String(entry.sha)} is not a valid blob`, doc)
  }
  return { status: 201, body: treeJson(ctx, ctx.state.putTree(files)) }
}

function getTree(ctx: Ctx, m: RegExpMatchArray): Reply {
  return ctx.state.trees.has(m[1]) ? { status: 200, body: treeJson(ctx, m[1]) } : notFound('git/trees#get-a-tree')
}

function createCommit(ctx: Ctx): Reply {
  const doc = 'git/commits#create-a-commit'
  const { message, tree, parents = [] } = ctx.body
  if (typeof message !== 'string') return fail(422, 'Invalid request.\n\n"message" wasn\'t supplied.', doc)
  if (typeof tree !== 'string' || !ctx.state.trees.has(tree)) return fail(422, 'Tree SHA does not exist', doc)
  if (!Array.isArray(parents) || parents.some((p) => !ctx.state.commits.has(String(p))))
    return fail(422, 'Parent SHA does not exist or is not a commit object', doc)
  const sha = ctx.state.putCommit(tree, parents.map(String), message)
  return { status: 201, body: commitJson(ctx, ctx.state.commits.get(sha)!) }
}

function getCommit(ctx: Ctx, m: RegExpMatchArray): Reply {
  const commit = ctx.state.commits.get(m[1])
  return commit ? { status: 200, body: commitJson(ctx, commit) } : notFound('git/commits#get-a-commit-object')
}

/** The files API lists at most 3,000 files of a PR; pages past them come back empty. */
const PULL_FILES_MAX = 3000

function listPullFiles(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'pulls/pulls#list-pull-requests-files'
  if (ctx.faults.pullFiles) return fail(ctx.faults.pullFiles, 'Server Error', doc)
  const files = ctx.state.pullFiles.get(Number(m[1]))
  if (!files) return notFound(doc)
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 30) || 30))
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1)
  const listed = files.slice(0, PULL_FILES_MAX)
  const last = Math.max(1, Math.ceil(listed.length / perPage))
  const link = (p: number, rel: string) =>
    `<${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${m[1]}/files?per_page=${perPage}&page=${p}>; rel="${rel}"`
  const rels = page < last ? [link(page + 1, 'next'), link(last, 'last')] : []
  const body = listed
    .slice((page - 1) * perPage, page * perPage)
    .map((f) => ({ sha: sha1(f.filename), status: 'modified', additions: 1, deletions: 0, changes: 1, ...f }))
  return { status: 200, body, headers: rels.length ? { link: rels.join(', ') } : undefined }
}

function getPages(ctx: Ctx): Reply {
  const pages = ctx.state.pages
  return pages
    ? {
        status: 200,
        body: {
          url: `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/pages`,
          status: 'built',
          build_type: 'legacy',
          ...pages,
        },
      }
    : notFound('pages/pages#get-a-apiname-pages-site')
}

function issueJson(ctx: Ctx, i: FakeIssue): unknown {
  const repoApi = `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}`
  const json: Record<string, unknown> = {
    id: 500_000 + i.number,
    node_id: `I_${i.number}`,
    number: i.number,
    url: `${repoApi}/issues/${i.number}`,
    html_url: `${ctx.origin}/${ctx.state.owner}/${ctx.state.repo}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    title: i.title,
    body: i.body,
    labels: i.labels.map((name) => ({ id: 600_000 + name.length, name, color: 'ededed', default: false })),
    state: i.state,
    state_reason: i.state_reason,
    user: { ...i.user, node_id: `U_${i.user.id}` },
    comments: ctx.state.commentsOn(i.number).length,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.closed_at,
    author_association: i.user.type === 'Bot' ? 'NONE' : 'CONTRIBUTOR',
  }
  if (i.pull) json.pull_request = { url: `${repoApi}/pulls/${i.number}`, merged_at: null }
  return json
}

function listIssues(ctx: Ctx): Reply {
  const doc = 'issues/issues#list-repository-issues'
  if (ctx.faults.comments === 'all') return forbidden(doc)
  const state = ctx.query.get('state') ?? 'open'
  const labels = (ctx.query.get('labels') ?? '').split(',').filter((l) => l !== '')
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 30) || 30))
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1)
  const all = ctx.state.issues
    .filter((i) => (state === 'all' || i.state === state) && labels.every((l) => i.labels.includes(l)))
    .sort((a, b) => b.number - a.number)
  const last = Math.max(1, Math.ceil(all.length / perPage))
  const query = [...ctx.query].filter(([k]) => k !== 'page').map(([k, v]) => `${k}=${encodeURIComponent(v)}&`)
  const link = (p: number, rel: string): string =>
    `<${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/issues?${query.join('')}page=${p}>; rel="${rel}"`
  const rels: string[] = []
  if (page > 1) rels.push(link(page - 1, 'prev'))
  if (page < last) rels.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) rels.push(link(1, 'first'))
  const slice = all.slice((page - 1) * perPage, page * perPage).map((i) => issueJson(ctx, i))
  return { status: 200, body: slice, headers: rels.length ? { link: rels.join(', ') } : {} }
}

function bodyInvalid(ctx: Ctx, doc: string): Reply | undefined {
  const { body } = ctx.body
  if (body !== undefined && body !== null && typeof body !== 'string') return fail(422, 'Invalid request.', doc)
  if (typeof body === 'string' && body.length > COMMENT_MAX) {
    const error = { resource: 'Issue', code: 'custom', field: 'body', message: 'body is too long' }
    return fail(422, 'Validation Failed', doc, { errors: [error] })
  }
  return undefined
}

function createIssue(ctx: Ctx): Reply {
  const doc = 'issues/issues#create-an-issue'
  if (ctx.faults.comments) return forbidden(doc)
  const { title, body, labels = [] } = ctx.body
  if (typeof title !== 'string' || title === '') return fail(422, 'Invalid request.\n\n"title" wasn\'t supplied.', doc)
  const invalid = bodyInvalid(ctx, doc)
  if (invalid) return invalid
  if (!Array.isArray(labels)) return fail(422, 'Invalid request.', doc)
  const names = labels.map((l) => String(typeof l === 'object' && l !== null ? (l as { name?: unknown }).name : l))
  const issue = ctx.state.addIssue({ title, body: typeof body === 'string' ? body : '', labels: names })
  return { status: 201, body: issueJson(ctx, issue) }
}

function getIssue(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/issues#get-an-issue'
  if (ctx.faults.comments === 'all') return forbidden(doc)
  const issue = ctx.state.issue(Number(m[1]))
  return issue ? { status: 200, body: issueJson(ctx, issue) } : notFound(doc)
}

const STATE_REASONS = new Set(['completed', 'not_planned', 'reopened', null])

function updateIssue(ctx: Ctx, m: RegExpMatchArray): Reply {
  const doc = 'issues/issues#update-an-issue'
  if (ctx.faults.comments) return forbidden(doc)
  const issue = ctx.state.issue(Number(m[1]))
  if (!issue) return notFound(doc)
  const { title, body, state, state_reason: reason } = ctx.body
  if (title !== undefined && (typeof title !== 'string' || title === '')) return fail(422, 'Invalid request.', doc)
  const invalid = bodyInvalid(ctx, doc)
  if (invalid) return invalid
  if (state !== undefined && state !== 'open' && state !== 'closed') return fail(422, 'Invalid request.', doc)
  if (reason !== undefined && !STATE_REASONS.has(reason as string | null)) return fail(422, 'Invalid request.', doc)
  if (typeof title === 'string') issue.title = title
  if (typeof body === 'string' || body === null) issue.body = body ?? ''
  if (state === 'closed' && issue.state === 'open') issue.closed_at = now()
  if (state === 'open') issue.closed_at = null
  if (state !== undefined) issue.state = state
  if (reason !== undefined) issue.state_reason = reason as FakeIssue['state_reason']
  else if (state === 'closed') issue.state_reason = 'completed'
  issue.updated_at = now()
  return { status: 200, body: issueJson(ctx, issue) }
}

function listCommitPulls(ctx: Ctx, m: RegExpMatchArray): Reply {
  const pulls = ctx.state.commitPulls.get(m[1]) ?? []
  const body = pulls.map((p) => ({
    id: 700_000 + p.number,
    state: p.merged_at ? 'closed' : 'open',
    url: `${ctx.origin}/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${p.number}`,
    ...p,
  }))
  return { status: 200, body }
}

const ROUTES: Array<[string, RegExp, Handler]> = [
  ['GET', /^\/issues$/, listIssues],
  ['POST', /^\/issues$/, createIssue],
  ['GET', /^\/issues\/(\d+)$/, getIssue],
  ['PATCH', /^\/issues\/(\d+)$/, updateIssue],
  ['GET', /^\/commits\/([^/]+)\/pulls$/, listCommitPulls],
  ['GET', /^\/pulls\/(\d+)\/files$/, listPullFiles],
  ['GET', /^\/pages$/, getPages],
  ['GET', /^\/issues\/(\d+)\/comments$/, listComments],
  ['POST', /^\/issues\/(\d+)\/comments$/, createComment],
  ['GET', /^\/issues\/comments\/(\d+)$/, getComment],
  ['PATCH', /^\/issues\/comments\/(\d+)$/, updateComment],
  ['GET', /^\/contents\/?(.*)$/, getContents],
  ['PUT', /^\/contents\/(.+)$/, putContents],
  ['GET', /^\/git\/ref\/(.+)$/, getRef],
  ['POST', /^\/git\/refs$/, createRef],
  ['PATCH', /^\/git\/refs\/(.+)$/, updateRef],
  ['POST', /^\/git\/blobs$/, createBlob],
  ['GET', /^\/git\/blobs\/([0-9a-f]{40})$/, getBlob],
  ['POST', /^\/git\/trees$/, createTree],
  ['GET', /^\/git\/trees\/([0-9a-f]{40})$/, getTree],
  ['POST', /^\/git\/commits$/, createCommit],
  ['GET', /^\/git\/commits\/([0-9a-f]{40})$/, getCommit],
]

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT'])

function route(ctx: Ctx): Reply {
  const prefix = `/repos/${ctx.state.owner}/${ctx.state.repo}`
  if (ctx.path.startsWith(prefix + '/')) {
    const rest = ctx.path.slice(prefix.length)
    if (ctx.faults.writes && WRITE_METHODS.has(ctx.method) && /^\/(git|contents)\//.test(rest))
      return fail(ctx.faults.writes, 'Server Error', '')
    for (const [method, pattern, handler] of ROUTES) {
      const m = ctx.method === method ? rest.match(pattern) : null
      if (m) return handler(ctx, m)
    }
  }
  return notFound('')
}

/** octokit sends `{path}` and `{ref}` with `/` as `%2F`; GitHub decodes them, so does the fake. */
function safeDecode(pathname: string): string {
  try {
    return decodeURIComponent(pathname)
  } catch {
    return pathname
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const state = new FakeState(
    options.owner ?? 'octo-org',
    options.repo ?? 'octo-repo',
    options.defaultBranch ?? 'main',
    options.actor ?? 'github-actions[bot]',
  )
  const faults: Faults = {
    putFailures: 0,
    putStatus: 409,
    comments: false,
    gets: false,
    refUpdates: 0,
    writes: false,
    hang: false,
  }
  const largeFileBytes = options.largeFileBytes ?? 1024 * 1024
  let origin = ''

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin)
    const text = await readBody(req)
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: safeDecode(url.pathname),
      query: Object.fromEntries(url.searchParams),
      status: 0,
      authorization: req.headers.authorization,
    }
    const prefix = `/repos/${state.owner}/${state.repo}`
    const hang = faults.hang
    if (
      hang &&
      entry.method === hang.method &&
      entry.path.startsWith(prefix) &&
      hang.path.test(entry.path.slice(prefix.length))
    ) {
      // Read and logged, never answered: the socket stays open until the client gives up or close() ends it.
      state.log.push(entry)
      hang.onHang?.(entry)
      return
    }
    let reply: Reply
    try {
      entry.body = text ? JSON.parse(text) : undefined
      const body = (entry.body ?? {}) as Record<string, unknown>
      reply = route({
        method: entry.method,
        path: entry.path,
        query: url.searchParams,
        body,
        origin,
        state,
        faults,
        largeFileBytes,
      })
    } catch (error) {
      reply = error instanceof SyntaxError ? fail(400, 'Problems parsing JSON', '') : fail(500, String(error), '')
    }
    entry.status = reply.status
    state.log.push(entry)
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-request-id': `FAKE:${state.log.length}`,
      ...reply.headers,
    })
    res.end(JSON.stringify(reply.body))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: origin,
    state,
    inject: {
      failContentsPuts(count, opts = {}) {
        faults.putFailures = count
        faults.putStatus = opts.status ?? 409
        faults.putBefore = opts.before
      },
      failContentsGets(fault) {
        faults.gets = fault
      },
      forbidComments(scope) {
        faults.comments = scope
      },
      failPullFiles(status) {
        faults.pullFiles = status
      },
      beforeRefUpdates(count, before) {
        faults.refUpdates = count
        faults.refBefore = before
      },
      failWrites(status) {
        faults.writes = status
      },
      hang(fault) {
        faults.hang = fault
      },
    },
    seedComments(issue, count, opts = {}) {
      const user = state.user(opts.login ?? 'octocat', opts.type)
      return Array.from({ length: count }, (_, i) =>
        state.addComment(issue, opts.body ?? `unrelated comment ${i + 1}`, user),
      )
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}
