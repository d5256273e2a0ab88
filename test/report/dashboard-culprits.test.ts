/**
 * What a bisection named, on the dashboard (report/pages/dashboard.ts `trendCulprits`, dashboard-chart.ts): each commit a
 * history entry's `culprits` names for a cell is marked on that cell's trends at the run of that commit where main
 * measured it, else at the run whose bisection named it; linked to its pull request, else to the commit; other cells
 * unmarked; nothing from the data branch reaches the page unescaped.
 */
import { describe, expect, it } from 'vitest'
import { renderDashboard } from '../../src/report/index.js'
import { xOf } from '../../src/report/pages/dashboard-chart.js'
import { dashboardInput } from '../../harness/dashboard-fixture.js'

describe('culprits on the dashboard', () => {
  const base = dashboardInput(2, 1, 6)
  const [first, second] = base.baseline.cells
  const culprit = base.history[3].sha
  const outside = 'c'.repeat(40)
  const history = base.history.map((e, i) =>
    i === 5
      ? {
          ...e,
          culprits: [
            {
              sha: culprit,
              cells: [first.id],
              kind: 'culprit' as const,
              pull: { number: 57, url: 'https://github.example/o/r/pull/57' },
            },
            { sha: outside, cells: [first.id], kind: 'step' as const },
            { sha: 'not a sha" onclick="x', cells: [first.id], kind: 'step' as const },
          ],
        }
      : e,
  )
  const page = renderDashboard({ ...base, history, repoUrl: 'https://github.example/o/r' })
  // A cell's card (the leaderboard's rows carry the same data-id, without an <h3>).
  const section = (id: string) => {
    const at = page.indexOf(`data-id="${id}"><h3>`)
    return page.slice(at, page.indexOf('</section>', at))
  }

  it("marks the culprit at its own run, linked to its pull request, on each of the cell's trends", () => {
    const marks = [
      ...section(first.id).matchAll(
        /<a href="https:\/\/github\.example\/o\/r\/pull\/57"><line class="culprit" x1="([\d.]+)"/g,
      ),
    ]
    expect(marks.length).toBeGreaterThanOrEqual(2)
    for (const m of marks) expect(Number(m[1])).toBeCloseTo(xOf(3, 6), 5)
    expect(section(first.id)).toContain(`<title>culprit ${culprit.slice(0, 7)} (#57)</title>`)
  })

  it('a commit main never measured is marked at the run whose bisection named it, linked to the commit', () => {
    const marks = [
      ...section(first.id).matchAll(
        new RegExp(
          `<a href="https://github\\.example/o/r/commit/${outside}"><line class="culprit" x1="([\\d.]+)"`,
          'g',
        ),
      ),
    ]
    expect(marks.length).toBeGreaterThanOrEqual(2)
    for (const m of marks) expect(Number(m[1])).toBeCloseTo(xOf(5, 6), 5)
  })

  it('marks no other cell, and drops a name that is not a commit id', () => {
    expect(section(second.id)).not.toContain('class="culprit"')
    expect(page).not.toContain('onclick')
    expect(renderDashboard(base)).not.toContain('class="culprit"')
  })
})
