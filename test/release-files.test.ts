/**
 * What a release is made of, as docs/releases.md describes it: the release workflow runs on a version tag with the
 * least it needs, refuses a stale bundle before the major tag moves or a release is published, and uses the
 * repository's scripts for both (test/scripts/release.slow.test.ts runs them); CHANGELOG.md keeps the form of
 * https://keepachangelog.com/en/1.1.0/; action.yml carries Marketplace branding in a colour GitHub documents
 * (https://docs.github.com/en/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions#brandingcolor);
 * the README shows the major tag near its top.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from './helpers/root.js'

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

interface Step {
  name?: string
  uses?: string
  run?: string
  with?: Record<string, unknown>
}
interface Workflow {
  on: { push: { tags: string[]; branches?: string[] } }
  permissions: Record<string, string>
  jobs: Record<string, { permissions: Record<string, string>; steps: Step[] }>
}

const WORKFLOW = parse(read('.github/workflows/release.yml')) as Workflow
const STEPS = Object.values(WORKFLOW.jobs).flatMap((job) => job.steps)
/** The index of the first step whose `run` or `uses` contains the text; -1 when none does. */
const stepOf = (text: string) => STEPS.findIndex((s) => `${s.run ?? ''}${s.uses ?? ''}`.includes(text))

describe('the release workflow', () => {
  it('runs on a pushed version tag only, with contents: write and nothing else', () => {
    expect(WORKFLOW.on).toEqual({ push: { tags: ['v*.*.*'] } })
    expect(WORKFLOW.permissions).toEqual({})
    expect(Object.values(WORKFLOW.jobs).map((job) => job.permissions)).toEqual([{ contents: 'write' }])
  })

  it('rebuilds and checks dist/ and schema/ before it moves v1 or publishes anything', () => {
    const order = [
      'actions/checkout@',
      'npm ci',
      'scripts/release-notes.sh',
      'npm run bundle',
      'npm run schema',
      'scripts/check-dist.sh',
      'scripts/move-major-tag.sh',
      'gh release create',
    ].map(stepOf)
    expect(order.every((i) => i >= 0)).toBe(true)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(STEPS[stepOf('scripts/check-dist.sh')].run).toContain('dist schema')
    expect(STEPS[stepOf('actions/checkout@')].with?.['fetch-depth']).toBe(0)
  })

  it("pins actions to the major tags the repository's docs use", () => {
    const docs = ['README.md', 'docs/workflows.md', 'docs/releases.md'].map(read).join('\n')
    for (const step of STEPS.filter((s) => s.uses)) {
      expect(step.uses).toMatch(/^actions\/[\w-]+@v\d+$/)
      const [action] = step.uses!.split('@')
      if (action === 'actions/checkout') expect(docs).toContain(`uses: ${step.uses}`)
    }
  })
})

describe('CHANGELOG.md', () => {
  const text = read('CHANGELOG.md')
  const headings = [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1])
  const releases = headings.slice(1).map((h) => {
    const m = /^\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(h)
    if (!m) throw new Error(`CHANGELOG.md: '## ${h}' is not '## [X.Y.Z] - YYYY-MM-DD'`)
    return { version: [1, 2, 3].map((i) => Number(m[i])), date: m[4] }
  })

  it('opens with Unreleased, then releases newest first', () => {
    expect(headings[0]).toBe('[Unreleased]')
    expect(releases.length).toBeGreaterThanOrEqual(4)
    for (let i = 1; i < releases.length; i++) {
      const [a, b] = [releases[i - 1], releases[i]]
      const newer = a.version[0] - b.version[0] || a.version[1] - b.version[1] || a.version[2] - b.version[2]
      expect(newer, `${a.version.join('.')} before ${b.version.join('.')}`).toBeGreaterThan(0)
      expect(a.date >= b.date, `${a.date} before ${b.date}`).toBe(true)
    }
    expect(releases.at(-1)?.version).toEqual([1, 0, 0])
  })

  it("groups changes under Keep a Changelog's headings", () => {
    const groups = [...text.matchAll(/^### (.*)$/gm)].map((m) => m[1])
    expect(groups.length).toBeGreaterThan(0)
    expect(
      groups.filter((g) => !['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(g)),
    ).toEqual([])
  })
})

describe('action.yml and the README', () => {
  it("carries Marketplace branding: a Feather icon name and one of GitHub's colours", () => {
    const { branding } = parse(read('action.yml')) as { branding: { icon: string; color: string } }
    expect(branding.icon).toMatch(/^[a-z][a-z0-9-]*$/)
    expect(['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']).toContain(
      branding.color,
    )
  })

  it('shows the action at its major tag near the top, with the way to upgrade', () => {
    const lines = read('README.md').split('\n')
    const uses = lines.findIndex((l) => /uses: [\w-]+\/llm-bench-gate@v1\b/.test(l))
    expect(uses).toBeGreaterThanOrEqual(0)
    expect(uses).toBeLessThan(20)
    expect(lines.slice(uses, uses + 6).join('\n')).toContain('(docs/releases.md)')
  })
})
