/**
 * The leaderboard's inline style: a plain, dense table that follows the reader's light or dark scheme. Cells wrap
 * (a second line in `.sub`), and the raw figures (`.extra`) stay hidden until the page's checkbox is ticked, so the
 * verdict and Δ fit an 800 px window; with every figure shown, the table scrolls inside its own box, never the page.
 */
/** The checkbox that shows the raw figures (`.extra`). */
export const FIGURES_TOGGLE_ID = 'all-figures'

export const LEADERBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --dim: #59636e; --line: #d1d9e0; --head: #f6f8fa; --zebra: #fafbfc;
  --bad: #cf222e; --good: #1a7f37; --warn: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --dim: #9198a1; --line: #3d444d; --head: #151b23; --zebra: #12171e;
    --bad: #ff7b72; --good: #3fb950; --warn: #d29922; }
}
body { margin: 2rem auto; max-width: 110rem; padding: 0 1rem; color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.1rem; margin: 2rem 0 .5rem; }
.meta, .dim, caption { color: var(--dim); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
main { min-width: 0; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
.extra { display: none; }
#${FIGURES_TOGGLE_ID}:checked ~ .table-wrap .extra { display: table-cell; }
.board label { color: var(--dim); margin-left: .3rem; cursor: pointer; }
td .sub { display: block; color: var(--dim); font-size: .85em; font-weight: 400; }
caption { caption-side: top; text-align: left; padding: .5rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
td:not(.num) { overflow-wrap: anywhere; }
td.num { white-space: nowrap; }
td.num .sub { white-space: normal; }
thead th { position: sticky; top: 0; background: var(--head); padding: 0; }
th button { all: unset; box-sizing: border-box; display: block; width: 100%; padding: .45rem .6rem; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 2px solid var(--good); outline-offset: -2px; }
th.num button { text-align: right; }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
tbody tr:nth-child(even) { background: var(--zebra); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.regression, td.error { color: var(--bad); font-weight: 600; }
td.improvement { color: var(--good); }
td.inconclusive { color: var(--warn); }
#errors pre { white-space: pre-wrap; margin: .25rem 0 1rem; padding: .5rem; border: 1px solid var(--line); }
`

/** A page's opening up to `<body>`: the leaderboard's style plus `css`; `title` is HTML, already escaped. */
export function pageHead(title: string, css = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${LEADERBOARD_CSS}${css}</style>
</head>
<body>`
}
