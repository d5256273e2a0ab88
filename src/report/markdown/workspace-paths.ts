/**
 * Paths in a report are relative to the workspace: a runner's `/home/runner/work/repo/repo/…` or the Node binary
 * a sim target runs under say nothing to a reviewer, and differ between runners, so a report never carries them.
 */
import { escapeRegExp } from '../../core/redact.js'

/**
 * The report with `<workspace>/` removed and the workspace itself as `.`, and the Node binary that runs this
 * process as `node`. Only whole path prefixes are replaced (`/work/main-2` is not inside `/work/main`).
 */
export function workspaceRelative(text: string, workspace: string | undefined, node = process.execPath): string {
  let out = text
  if (node && node.startsWith('/')) out = out.replaceAll(node, 'node')
  if (!workspace || workspace === '/' || !workspace.startsWith('/')) return out
  const root = workspace.replace(/\/+$/, '')
  return out.replace(new RegExp(`${escapeRegExp(root)}(?=/|(?![\\w.-]))(/?)`, 'g'), (_, slash: string) =>
    slash ? '' : '.',
  )
}
