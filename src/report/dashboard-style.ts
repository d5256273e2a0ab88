/** The dashboard's inline style, on top of the leaderboard's: filters, chart cards, the hover tip. */
export const DASHBOARD_CSS = `
[hidden] { display: none !important; }
.filters { margin: .5rem 0 1rem; display: flex; gap: 1rem; flex-wrap: wrap; }
.filters label { color: var(--dim); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: 1rem; }
.cell { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.cell h3 { font-size: .95rem; margin: 0 0 .25rem; }
figure { margin: .25rem 0; }
figcaption { font-size: .85rem; }
svg.trend { display: block; width: 100%; height: auto; aspect-ratio: 5 / 1; background: var(--zebra); cursor: crosshair; }
svg.trend path { fill: none; stroke: var(--good); stroke-width: 2; vector-effect: non-scaling-stroke; }
svg.trend .point, svg.trend .dot { fill: var(--fg); }
svg.trend .shift { stroke: var(--warn); stroke-width: 1.5; stroke-dasharray: 4 3; vector-effect: non-scaling-stroke; }
#tip { position: fixed; pointer-events: none; background: var(--head); border: 1px solid var(--line); padding: .2rem .45rem;
  border-radius: 4px; font-size: .85rem; white-space: nowrap; z-index: 2; }
`
