/**
 * The dashboard's script: hover a trend chart to read the nearest run's commit, date and value (from the
 * page's JSON data block, set as text, never as markup), and filter rows and charts by engine, quant and
 * scenario. Plain ES5 with no outer names, so it runs from `file://` and from GitHub Pages alike.
 * The hover dot sits on the line's own vertices, read back from its path (dashboard-chart.ts `linePath`: `M x y`
 * after a gap, relative `l` pairs, `h0` for a lone run), the k-th vertex being the k-th run with a value; a run that is
 * not a default-branch run is no vertex but the chart's last slot, its y in `data-run-y` (dashboard-chart.ts).
 */
import { CHART } from './dashboard-chart.js'

export const DATA_ID = 'dashboard-data'
export const TIP_ID = 'tip'
export const FILTERS = ['engine', 'quant', 'scenario'] as const

/** Per history index, the y of the line's vertex, or '' where the run did not measure the cell. */
const VERTICES = `function ysOf(svg) {
  var line = svg.querySelector('path.line');
  var tokens = line ? line.getAttribute('d').match(/[Mlh]|-?[0-9.]+/g) || [] : [];
  var ys = [], y = 0, command = '';
  for (var t = 0; t < tokens.length; t++) {
    if (/[Mlh]/.test(tokens[t])) { command = tokens[t]; continue; }
    if (command === 'h') continue;
    var dy = Number(tokens[++t]);
    y = command === 'M' ? dy : y + dy;
    ys.push(y);
  }
  var series = seriesOf(svg), out = [], k = 0, run = svg.getAttribute('data-run-y');
  for (var i = 0; i < series.length; i++) {
    if (series[i] === null) out.push('');
    else out.push(run !== null && i === series.length - 1 ? Number(run) : ys[k++]);
  }
  return out;
}`

export function dashboardScript(): string {
  const source = `(function () {
var LEFT = ${CHART.left}, INNER = ${CHART.width - CHART.left - CHART.right};
var data = JSON.parse(document.getElementById(${JSON.stringify(DATA_ID)}).textContent);
var tip = document.getElementById(${JSON.stringify(TIP_ID)});
function xOf(i, n) { return Math.round(n <= 1 ? LEFT + INNER / 2 : LEFT + i * INNER / (n - 1)); }
function seriesOf(svg) { return data.series[Number(svg.getAttribute('data-cell'))][Number(svg.getAttribute('data-metric'))]; }
${VERTICES}
function nearest(ys, i) {
  for (var d = 0; d < ys.length; d++) {
    if (i - d >= 0 && ys[i - d] !== '') return i - d;
    if (i + d < ys.length && ys[i + d] !== '') return i + d;
  }
  return -1;
}
function hide(svg) { tip.hidden = true; var dot = svg.querySelector('.dot'); dot.setAttribute('cx', -10); dot.setAttribute('cy', -10); }
function show(svg, ys, event) {
  var n = Number(svg.getAttribute('data-n'));
  var shifts = svg.getAttribute('data-shifts').split(',');
  var rect = svg.getBoundingClientRect();
  var vx = (event.clientX - rect.left) * ${CHART.width} / rect.width;
  var raw = n <= 1 ? 0 : Math.round((vx - LEFT) * (n - 1) / INNER);
  var i = nearest(ys, Math.max(0, Math.min(n - 1, raw)));
  if (i < 0) return hide(svg);
  var series = seriesOf(svg);
  var commit = data.commits[i];
  var dot = svg.querySelector('.dot');
  dot.setAttribute('cx', xOf(i, n));
  dot.setAttribute('cy', ys[i]);
  var unit = data.units[Number(svg.getAttribute('data-metric'))];
  tip.textContent = series[i] + ' ' + unit + ' \\u00b7 ' + commit[0] + ' \\u00b7 ' + commit[1] + (shifts.indexOf(String(i)) >= 0 ? ' \\u00b7 level shift' : '');
  tip.hidden = false;
  tip.style.left = (event.clientX + 12) + 'px';
  tip.style.top = (event.clientY + 12) + 'px';
}
Array.prototype.forEach.call(document.querySelectorAll('svg.trend'), function (svg) {
  var ys = ysOf(svg);
  svg.addEventListener('mousemove', function (event) { show(svg, ys, event); });
  svg.addEventListener('mouseleave', function () { hide(svg); });
});
var keys = ${JSON.stringify(FILTERS)};
function applyFilters() {
  var chosen = keys.map(function (k) { return document.getElementById('filter-' + k).value; });
  Array.prototype.forEach.call(document.querySelectorAll('[data-engine]'), function (el) {
    var keep = keys.every(function (k, j) { return chosen[j] === '' || el.getAttribute('data-' + k) === chosen[j]; });
    el.hidden = !keep;
  });
}
keys.forEach(function (k) { document.getElementById('filter-' + k).addEventListener('change', applyFilters); });
})();`
  return source.replace(/<\//g, '<\\/')
}
