/**
 * Column sorting for the HTML leaderboard. `sortRows` runs in the browser: the page's script embeds its source
 * (`sortRows.toString()`), so the function must stay self-contained plain code — no imports, no outer names.
 */

/** A cell's sort key: a raw number, a text, or null when the cell has no value (sorted last either way). */
export type SortValue = string | number | null

export interface SortRow {
  /** One value per column. */
  values: readonly SortValue[]
  /** Position in the default order; breaks ties so equal rows keep it. */
  index: number
}

export type SortDirection = 'ascending' | 'descending'

/** A sorted copy: numbers numerically, texts with numeric collation (`9B` before `27B`), missing values last. */
export function sortRows<T extends SortRow>(rows: readonly T[], column: number, direction: SortDirection): T[] {
  const sign = direction === 'descending' ? -1 : 1
  return rows.slice().sort(function (x, y) {
    const a = x.values[column]
    const b = y.values[column]
    const noA = a === null || a === undefined
    const noB = b === null || b === undefined
    if (noA || noB) return noA === noB ? x.index - y.index : noA ? 1 : -1
    const order =
      typeof a === 'number' && typeof b === 'number'
        ? a - b
        : String(a).localeCompare(String(b), 'en', { numeric: true, sensitivity: 'base' })
    return sign * order || x.index - y.index
  })
}

/**
 * The page's script: reads each row's values from `data-value` (numbers for `data-type="number"` columns),
 * and on a header button's click sorts ascending, then descending, moving the rows and setting `aria-sort`.
 */
export function sortScript(tableId: string): string {
  // `<\/` keeps any `</script` in the source from ending the element early; it reads the same inside JS strings.
  const source = `(function () {
${sortRows.toString()}
var table = document.getElementById(${JSON.stringify(tableId)});
if (!table) return;
var body = table.tBodies[0];
var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
var rows = Array.prototype.map.call(body.rows, function (tr, index) {
  var values = Array.prototype.map.call(tr.cells, function (td, column) {
    var raw = td.getAttribute('data-value');
    if (raw === null || raw === '') return null;
    return heads[column].getAttribute('data-type') === 'number' ? Number(raw) : raw;
  });
  return { el: tr, index: index, values: values };
});
heads.forEach(function (th, column) {
  th.querySelector('button').addEventListener('click', function () {
    var direction = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    heads.forEach(function (other) { other.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', direction);
    sortRows(rows, column, direction).forEach(function (row) { body.appendChild(row.el); });
  });
});
})();`
  return source.replace(/<\//g, '<\\/')
}
