/**
 * The import rule of docs/architecture.md, checked over the real import graph of src/.
 *
 * Units are the top-level folders of src/ and, one unit each, the entry files directly in src/.
 * The layer table is read from the doc (between its `layer-table` markers), so the doc and this
 * test cannot drift apart. A unit may import only units of strictly lower layers; units of one
 * layer never import each other unless the table row allows it, and no cycle may form. Every
 * relative specifier counts: `import`, `import type`, `export … from`, `import()` and
 * `import('…')` types. Package imports and files outside src/ (package.json, fixtures) are not
 * units and are ignored. The files directly in src/ are the entries the table names, nothing
 * else, and no two files of src/ share a base name unless the name means the same thing in
 * both folders (`index.ts`, `types.ts`, an engine's name).
 */
import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ENGINES } from '../src/engines/registry.js'
import { ROOT } from './helpers/root.js'
import { sourceFiles, type SourceFile } from './helpers/sources.js'

const DOC = 'docs/architecture.md'

interface Layer {
  rank: number
  name: string
  /** `core/` for a folder, `index.ts` for a file directly in src/. */
  units: string[]
  sameLayer: boolean
}

interface ImportRef {
  specifier: string
  line: number
}

interface FileImports {
  /** Relative to src/: `bench/rounds/round.ts`, `index.ts`. */
  file: string
  imports: ImportRef[]
}

interface Edge {
  from: string
  to: string
  file: string
  specifier: string
  line: number
}

interface Findings {
  /** Upward, same-layer and unplaced imports, one line each. */
  violations: string[]
  /** Each cycle between units as its path, `a.ts → b.ts → a.ts`, with the imports that close it. */
  cycles: string[]
}

// ── the layer table ─────────────────────────────────────────────────────────────────────────

/** Rows of the markdown table between `<!-- layer-table -->` and `<!-- /layer-table -->`. */
function parseLayerTable(markdown: string): Layer[] {
  const block = /<!-- layer-table[^>]*-->([\s\S]*?)<!-- \/layer-table -->/.exec(markdown)
  if (!block) throw new Error(`${DOC}: no <!-- layer-table --> … <!-- /layer-table --> block`)
  const rows = block[1]
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
  const [head, ...body] = rows
  if (head?.join('|') !== 'layer|name|units|same-layer imports') {
    throw new Error(`${DOC}: the layer table must have the columns layer | name | units | same-layer imports`)
  }
  return body.map(([rank, name, units, same], i) => {
    const layer = {
      rank: Number(rank),
      name,
      units: [...units.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      sameLayer: /^allowed/.test(same),
    }
    if (!Number.isInteger(layer.rank) || layer.units.length === 0)
      throw new Error(`${DOC}: layer table row ${i + 1} needs a whole-number layer and backticked units`)
    return layer
  })
}

/** The unit a file of src/ belongs to: its top-level folder (`bench/`) or, for a root file, itself. */
function unitOf(file: string): string {
  const slash = file.indexOf('/')
  return slash < 0 ? file : file.slice(0, slash + 1)
}

function layerOf(unit: string, layers: readonly Layer[]): Layer | undefined {
  return layers.find((l) => l.units.includes(unit))
}

// ── the import graph ────────────────────────────────────────────────────────────────────────

/** Every module specifier in a file, found in the syntax tree (comments and strings cannot fool it). */
function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const found: ImportRef[] = []
  const add = (node: ts.Node, specifier: string) =>
    found.push({ specifier, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 })
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text)
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments
      // A computed specifier cannot be placed in the graph; it is reported as such.
      add(node, arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>')
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The src/-relative file a relative specifier names (`.js` → `.ts`); undefined outside src/ or for packages. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined
  const target = posix.normalize(posix.join(posix.dirname(from), specifier))
  if (target.startsWith('../')) return undefined
  return target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts')
}

function edgesOf(files: readonly FileImports[], violations: string[]): Edge[] {
  const edges: Edge[] = []
  for (const { file, imports } of files) {
    for (const { specifier, line } of imports) {
      if (specifier === '<computed>')
        violations.push(`src/${file}:${line}: dynamic import() with a computed specifier cannot be checked`)
      const target = resolveSpecifier(file, specifier)
      if (target === undefined) continue
      const [from, to] = [unitOf(file), unitOf(target)]
      if (from !== to) edges.push({ from, to, file, specifier, line })
    }
  }
  return edges
}

// ── the checks ──────────────────────────────────────────────────────────────────────────────

function describeLayer(layer: Layer): string {
  return `layer ${layer.rank} ${layer.name}`
}

function layerViolations(files: readonly FileImports[], edges: readonly Edge[], layers: readonly Layer[]): string[] {
  const out: string[] = []
  for (const unit of new Set(files.map((f) => unitOf(f.file)))) {
    if (!layerOf(unit, layers)) out.push(`src/${unit}: no layer in the table of ${DOC}`)
  }
  for (const edge of edges) {
    const [from, to] = [layerOf(edge.from, layers), layerOf(edge.to, layers)]
    if (!from || !to) continue
    const where = `src/${edge.file}:${edge.line} imports '${edge.specifier}'`
    if (to.rank > from.rank)
      out.push(
        `${where}: ${edge.from} (${describeLayer(from)}) may not import ${edge.to} (${describeLayer(to)}), a higher layer`,
      )
    else if (to.rank === from.rank && !from.sameLayer)
      out.push(
        `${where}: ${edge.from} and ${edge.to} share ${describeLayer(from)}, whose units never import each other`,
      )
  }
  return out
}

/** Strongly connected components of the unit graph (Tarjan); a component of two or more units holds a cycle. */
function components(nodes: readonly string[], next: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const connect = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) connect(w)
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w)
      component.push(w)
      if (w === v) break
    }
    if (component.length > 1) found.push(component.sort())
  }
  for (const v of nodes) if (!index.has(v)) connect(v)
  return found
}

/** One cycle through `start` inside its component, as the list of units (breadth-first: a shortest one). */
function cycleThrough(
  start: string,
  members: ReadonlySet<string>,
  next: ReadonlyMap<string, readonly string[]>,
): string[] {
  const parent = new Map<string, string>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    for (const w of next.get(queue[i]) ?? []) {
      if (!members.has(w)) continue
      if (w === start) {
        const path = [queue[i]]
        while (path[0] !== start) path.unshift(parent.get(path[0])!)
        return [...path, start]
      }
      if (!parent.has(w)) {
        parent.set(w, queue[i])
        queue.push(w)
      }
    }
  }
  return [start]
}

function cycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>()
  for (const e of edges) if (!next.get(e.from)?.includes(e.to)) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort()
  return components(nodes, next).map((component) => {
    const path = cycleThrough(component[0], new Set(component), next)
    const hops = path.slice(1).map((to, i) => {
      const e = edges.find((x) => x.from === path[i] && x.to === to)!
      return `src/${e.file}:${e.line} imports '${e.specifier}'`
    })
    const rest = component.length > path.length - 1 ? ` (component: ${component.join(', ')})` : ''
    return `${path.join(' → ')}${rest}; ${hops.join('; ')}`
  })
}

function checkImports(files: readonly FileImports[], layers: readonly Layer[]): Findings {
  const violations: string[] = []
  const edges = edgesOf(files, violations)
  violations.push(...layerViolations(files, edges, layers))
  return { violations, cycles: cycles(edges) }
}

/** The files directly in src/ that the table does not name as entries (its last layer). */
function rootFiles(files: readonly string[], layers: readonly Layer[]): string[] {
  const entries = layers.at(-1)?.units ?? []
  return files
    .filter((f) => !f.includes('/') && !entries.includes(f))
    .map((f) => `src/${f}: a file directly in src/ that is not an entry of ${DOC}`)
}

/**
 * Base names that more than one file of src/ carries. A name may repeat only where it means the same in
 * every folder: `index.ts` (a folder's public face), `types.ts` (a folder's shapes), and an engine's name
 * (its adapter in engines/, its result files in ingest/).
 */
function sharedBaseNames(files: readonly string[], engines: readonly string[]): string[] {
  const same = new Set(['index.ts', 'types.ts', ...engines.map((e) => `${e}.ts`)])
  const byName = new Map<string, string[]>()
  for (const file of files) {
    const name = posix.basename(file)
    if (!same.has(name)) byName.set(name, [...(byName.get(name) ?? []), file])
  }
  return [...byName]
    .filter(([, paths]) => paths.length > 1)
    .map(([name, paths]) => `${name}: ${paths.map((p) => `src/${p}`).join(', ')}`)
}

/** Files outside action/ that import the Actions toolkit. */
function actionsImports(files: readonly FileImports[]): string[] {
  return files.flatMap(({ file, imports }) =>
    unitOf(file) === 'action/'
      ? []
      : imports
          .filter((i) => i.specifier.startsWith('@actions/'))
          .map((i) => `src/${file}:${i.line} imports '${i.specifier}'`),
  )
}

// ── the tests ───────────────────────────────────────────────────────────────────────────────

// ── rooms inside a unit ────────────────────────────────────────────────────────────────────

/**
 * The rooms of a unit (docs/architecture.md, "Rooms") in the order they may import each other: a room imports only
 * rooms listed before it, and the unit's root files; rooms of one group (an inner list) never import each other.
 */
const ROOMS: Record<string, string[][]> = {
  'bench/': [['stream/'], ['prompts/'], ['rounds/']],
  'report/': [['markdown/', 'pages/']],
}

/** The room of a src/-relative file inside `unit` (`stream/`), or undefined for the unit's root files. */
function roomOf(file: string, unit: string): string | undefined {
  if (!file.startsWith(unit)) return undefined
  const rest = file.slice(unit.length)
  return rest.includes('/') ? `${rest.slice(0, rest.indexOf('/'))}/` : undefined
}

/** Each import between rooms of one unit that the order of ROOMS does not allow, naming the file and the import. */
function roomViolations(files: readonly FileImports[], rooms: Record<string, string[][]>): string[] {
  const out: string[] = []
  for (const [unit, order] of Object.entries(rooms)) {
    const rank = (room: string) => order.findIndex((group) => group.includes(room))
    for (const { file, imports } of files) {
      const from = roomOf(file, unit)
      if (from === undefined) continue
      for (const { specifier, line } of imports) {
        const target = resolveSpecifier(file, specifier)
        const to = target === undefined ? undefined : roomOf(target, unit)
        if (to === undefined || to === from) continue
        if (rank(to) < 0 || rank(from) < 0 || rank(to) >= rank(from))
          out.push(`src/${file}:${line} imports '${specifier}': ${unit}${to} is not a room ${unit}${from} may use`)
      }
    }
  }
  return out
}

const layers = parseLayerTable(readFileSync(posix.join(ROOT, DOC), 'utf8'))
const graph = sourceFiles().map((f: SourceFile): FileImports => ({ file: f.path, imports: importsOf(f.path, f.text) }))

describe('import graph of src/', () => {
  it('reads a layer table with every unit of src/ in it', () => {
    expect(layers.map((l) => l.rank)).toEqual([...layers.map((l) => l.rank)].sort((a, b) => a - b))
    expect(graph.length).toBeGreaterThan(50)
    // The scan sees the real graph, not an empty one that would pass every check.
    expect(graph.find((f) => f.file === 'run/measure-targets.ts')?.imports.map((i) => i.specifier)).toContain(
      '../target-run/run-target.js',
    )
    const unplaced = [...new Set(graph.map((f) => unitOf(f.file)))].filter((u) => !layerOf(u, layers))
    expect(unplaced).toEqual([])
  })

  it('has no import of a higher layer or of another unit of the same layer', () => {
    expect(checkImports(graph, layers).violations).toEqual([])
  })

  it('has no cycle between units', () => {
    expect(checkImports(graph, layers).cycles).toEqual([])
  })

  it('keeps the rooms of bench/ and report/ in their order', () => {
    // The rooms exist and use each other as the order allows, so the check below sees real edges.
    const rooms = graph.flatMap((f) => f.imports.map((i) => resolveSpecifier(f.file, i.specifier) ?? ''))
    expect(rooms.some((t) => t.startsWith('bench/stream/'))).toBe(true)
    expect(graph.some((f) => f.file.startsWith('report/pages/'))).toBe(true)
    expect(roomViolations(graph, ROOMS)).toEqual([])
    // The same check refuses a room that uses a later one, and two rooms of one group that meet.
    const planted: FileImports[] = [
      { file: 'bench/stream/send.ts', imports: [{ specifier: '../rounds/round.js', line: 3 }] },
      { file: 'report/pages/dashboard.ts', imports: [{ specifier: '../markdown/render.js', line: 7 }] },
      { file: 'report/pages/leaderboard.ts', imports: [{ specifier: '../escape.js', line: 2 }] },
    ]
    expect(roomViolations(planted, ROOMS)).toEqual([
      "src/bench/stream/send.ts:3 imports '../rounds/round.js': bench/rounds/ is not a room bench/stream/ may use",
      "src/report/pages/dashboard.ts:7 imports '../markdown/render.js': report/markdown/ is not a room report/pages/ may use",
    ])
  })

  it('holds only the entries directly in src/, and no base name twice with different meanings', () => {
    expect(
      rootFiles(
        graph.map((f) => f.file),
        layers,
      ),
    ).toEqual([])
    expect(
      sharedBaseNames(
        graph.map((f) => f.file),
        ENGINES.map((e) => e.name),
      ),
    ).toEqual([])
  })

  it('keeps @actions/* in action/ alone', () => {
    expect(
      graph.find((f) => f.file === 'action/runner.ts')?.imports.some((i) => i.specifier.startsWith('@actions/')),
    ).toBe(true)
    expect(actionsImports(graph)).toEqual([])
  })
})

describe('the checker', () => {
  const table: Layer[] = [
    { rank: 1, name: 'core', units: ['core/'], sameLayer: false },
    { rank: 2, name: 'measure', units: ['bench/', 'compare/'], sameLayer: false },
    { rank: 3, name: 'report', units: ['report/'], sameLayer: false },
    { rank: 4, name: 'run', units: ['run/', 'merge/'], sameLayer: true },
    { rank: 5, name: 'entries', units: ['index.ts'], sameLayer: false },
  ]
  const file = (path: string, text: string): FileImports => ({ file: path, imports: importsOf(path, text) })

  it('reports an upward import, a same-layer import, a cycle and an @actions import, naming file and import', () => {
    const findings = checkImports(
      [
        file('core/types.ts', `import type { Row } from '../report/table.js'\n`),
        file('report/table.ts', `import { Stats } from '../core/types.js'\nexport type Row = Stats\n`),
        file('bench/round.ts', `\nexport { judge } from '../compare/judge.js'\n`),
        file('compare/judge.ts', `import { z } from 'zod'\nconst pkg = await import('../../package.json')\n`),
        file('run/pipeline.ts', `import { merge } from '../merge/shards.js'\n`),
        file(
          'merge/shards.ts',
          `import * as core from '@actions/core'\nexport type P = import('../run/pipeline.js').Pipeline\n`,
        ),
        file('index.ts', `await import('./run/pipeline.js')\n`),
      ],
      table,
    )
    expect(findings.violations).toEqual([
      `src/core/types.ts:1 imports '../report/table.js': core/ (layer 1 core) may not import report/ (layer 3 report), a higher layer`,
      `src/bench/round.ts:2 imports '../compare/judge.js': bench/ and compare/ share layer 2 measure, whose units never import each other`,
    ])
    expect(findings.cycles).toEqual([
      `core/ → report/ → core/; src/core/types.ts:1 imports '../report/table.js'; src/report/table.ts:1 imports '../core/types.js'`,
      `merge/ → run/ → merge/; src/merge/shards.ts:2 imports '../run/pipeline.js'; src/run/pipeline.ts:1 imports '../merge/shards.js'`,
    ])
    expect(actionsImports([file('merge/shards.ts', `import * as core from '@actions/core'\n`)])).toEqual([
      `src/merge/shards.ts:1 imports '@actions/core'`,
    ])
  })

  it('finds every kind of specifier, and ignores packages and files outside src/', () => {
    const text = [
      `import a from './a.js'`,
      `import type { B } from '../b/index.js'`,
      `export { c } from './c.js'`,
      `export * from './d.js'`,
      `const e = await import('./e.js')`,
      `type F = import('./f.js').F`,
      `// import { g } from './g.js'`,
      `const h = "import('./h.js')"`,
    ].join('\n')
    expect(importsOf('x/y.ts', text).map((i) => i.specifier)).toEqual([
      './a.js',
      '../b/index.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
    ])
    expect(resolveSpecifier('bench/round.ts', '../core/stats.js')).toBe('core/stats.ts')
    expect(resolveSpecifier('core/version.ts', '../../package.json')).toBeUndefined()
    expect(resolveSpecifier('run/pipeline.ts', 'zod')).toBeUndefined()
  })

  it('reports a unit the table does not place: a folder, or a file directly in src/ that is not an entry', () => {
    const findings = checkImports(
      [
        { file: 'extra/x.ts', imports: [] },
        { file: 'pipeline.ts', imports: [] },
      ],
      table,
    )
    expect(findings.violations).toEqual([
      `src/extra/: no layer in the table of ${DOC}`,
      `src/pipeline.ts: no layer in the table of ${DOC}`,
    ])
    expect(rootFiles(['index.ts', 'pipeline.ts', 'run/pipeline.ts'], table)).toEqual([
      `src/pipeline.ts: a file directly in src/ that is not an entry of ${DOC}`,
    ])
  })

  it('reports base names shared by files of different meaning, and allows the ones that mean the same', () => {
    const files = [
      'run/merge.ts',
      'store/merge.ts',
      'bench/index.ts',
      'sim/index.ts',
      'engines/vllm.ts',
      'ingest/vllm.ts',
      'server/types.ts',
      'ingest/types.ts',
    ]
    expect(sharedBaseNames(files, ['vllm'])).toEqual(['merge.ts: src/run/merge.ts, src/store/merge.ts'])
  })
})
