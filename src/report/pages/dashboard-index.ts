/** The data branch's root `index.html`: every hardware key with its latest update, linking its dashboard. */
import { plural } from '../../core/format.js'
import { escapeHtml } from '../escape.js'
import { formatDate } from './leaderboard.js'
import { pageHead } from './leaderboard-style.js'

export interface HardwareSummary {
  hardware: string
  /** When its baseline was last updated (ISO), if known. */
  updated?: string
  sha?: string
  cells?: number
}

export function renderHardwareIndex(keys: readonly HardwareSummary[]): string {
  const sorted = [...keys].sort((a, b) => a.hardware.localeCompare(b.hardware, 'en', { numeric: true }))
  const rows = sorted.map((k) => {
    const href = `${encodeURIComponent(k.hardware)}/index.html`
    const sha = k.sha ? `<code>${escapeHtml(k.sha.slice(0, 12))}</code>` : '—'
    return `<tr><td><a href="${escapeHtml(href)}">${escapeHtml(k.hardware)}</a></td><td>${formatDate(k.updated)}</td><td>${sha}</td><td class="num">${k.cells ?? '—'}</td></tr>`
  })
  return `${pageHead('LLM serving benchmarks')}
<header><h1>LLM serving benchmarks</h1><p class="meta">${plural(sorted.length, 'hardware key')}</p></header>
<main>
<table>
<thead><tr><th scope="col">Hardware</th><th scope="col">Latest update</th><th scope="col">Baseline commit</th><th scope="col" class="num">Cells</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</main>
</body>
</html>
`
}
