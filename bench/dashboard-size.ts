/**
 * Prints the dashboard page's size for a matrix of 50 cells (10 targets × 5 scenarios) with 100 history
 * entries, the case the page is bounded for (300 KB), and for the smaller cases around it.
 *
 *   npx tsx bench/dashboard-size.ts
 */
import { renderDashboard } from '../src/report/index.js'
import { dashboardInput } from '../harness/dashboard-fixture.js'

const cases: Array<[number, number, number]> = [
  [3, 2, 30],
  [10, 5, 30],
  [10, 5, 100],
]
for (const [targets, scenarios, runs] of cases) {
  const bytes = Buffer.byteLength(renderDashboard(dashboardInput(targets, scenarios, runs)))
  console.log(`${targets * scenarios} cells × ${runs} runs: ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`)
}
