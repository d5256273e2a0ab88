/**
 * The dashboard's inline style, on top of the leaderboard's: filters, chart cards, the hover tip. Tick labels are
 * in view-box units, so 18 reads about 11 px on a card 400 px wide. The trend line's points are its markers
 * (dashboard-chart.ts), a same-page reference.
 */
import { TREND_POINT_ID } from './dashboard-chart.js'

export const DASHBOARD_CSS = `
[hidden] { display: none !important; }
.filters { margin: .5rem 0 1rem; display: flex; gap: 1rem; flex-wrap: wrap; }
.filters label { color: var(--dim); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: 1rem; }
.cell { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.cell h3 { font-size: .95rem; margin: 0 0 .25rem; }
figure { margin: .25rem 0; }
figcaption { font-size: .85rem; }
figcaption .band-note { display: block; color: var(--dim); font-size: .8rem; }
svg.trend { display: block; width: 100%; height: auto; aspect-ratio: 600 / 140; background: var(--zebra); cursor: crosshair; }
svg.trend .line { fill: none; stroke: var(--good); stroke-width: 2; vector-effect: non-scaling-stroke; marker: url(#${TREND_POINT_ID}); }
svg.trend .grid { fill: none; stroke: var(--line); stroke-width: 1; vector-effect: non-scaling-stroke; }
svg.trend .band { fill: var(--good); fill-opacity: .14; }
svg.trend text { fill: var(--dim); font-size: 18px; text-anchor: end; }
svg.trend text.unit { font-size: 16px; }
svg.trend text.empty { text-anchor: middle; }
svg.trend .dot { fill: var(--fg); }
svg.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
svg.defs .point { fill: var(--fg); }
svg.trend .shift { stroke: var(--warn); stroke-width: 1.5; stroke-dasharray: 4 3; vector-effect: non-scaling-stroke; }
svg.trend .culprit { stroke: var(--bad, #c0392b); stroke-width: 2; vector-effect: non-scaling-stroke; }
svg.trend .culprit-head { fill: var(--bad, #c0392b); }
svg.trend .reference { fill: none; stroke: var(--fg); stroke-width: 1; stroke-dasharray: 6 3; vector-effect: non-scaling-stroke; }
svg.trend .run-point { fill: var(--head); stroke: var(--fg); stroke-width: 2; vector-effect: non-scaling-stroke; }
svg.trend .run-point.regressed { fill: var(--bad); stroke: var(--bad); }
svg.trend .regressed-ring { fill: none; stroke: var(--bad); stroke-width: 2.5; vector-effect: non-scaling-stroke; }
.legend { color: var(--dim); font-size: .85rem; }
.legend .key { color: var(--fg); }
.legend .regressed-key { color: var(--bad); font-weight: 700; }
#tip { position: fixed; pointer-events: none; background: var(--head); border: 1px solid var(--line); padding: .2rem .45rem;
  border-radius: 4px; font-size: .85rem; white-space: nowrap; z-index: 2; }
`
