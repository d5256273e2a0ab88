// CONTRACT STUB — the report helper replaces the bodies; keep the exported names and shapes.
import type { GitHubRequest, RepoRef } from '../github-port.js'
import type { ResultsFile } from '../results.js'

export const COMMENT_LIMIT = 65_536
export const SUMMARY_LIMIT = 1024 * 1024

export interface RenderContext {
  configPath: string
  mode: string
  repoUrl?: string
  runUrl?: string
  sha?: string
}

/** The markdown report; sheds detail in stages to stay under maxChars and says what it shed. */
export function renderReport(_results: ResultsFile, _ctx: RenderContext, _maxChars: number): string {
  throw new Error('not implemented')
}

export function commentMarker(configPath: string): string {
  return `<!-- llm-bench-gate:${configPath} -->`
}

export interface UpsertOptions {
  request: GitHubRequest
  repo: RepoRef
  issueNumber: number
  configPath: string
  body: string
}

/** Find our comment across all pages by its marker and update it, or create one. */
export async function upsertComment(_options: UpsertOptions): Promise<{ url: string; action: 'created' | 'updated' }> {
  throw new Error('not implemented')
}
