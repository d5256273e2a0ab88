/**
 * No function in src/ spans more than MAX_LINES lines. Every function with a body counts:
 * declarations, methods, getters and setters, constructors, arrow functions and function
 * expressions wherever they stand (assigned, passed, returned). A function's span runs from its
 * first token (modifiers included, leading comments not) to its closing brace, blank lines,
 * comments and nested functions included, so a long factory cannot hide behind its closures.
 */
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './helpers/sources.js'

const MAX_LINES = 60

interface FunctionSpan {
  file: string
  /** Enclosing functions and classes joined with ` > `: `createBenchClient > measure`. */
  name: string
  line: number
  lines: number
}

type WithBody = ts.FunctionLikeDeclaration & { body: ts.Node }

function hasBody(node: ts.Node): node is WithBody {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)) &&
    node.body !== undefined
  )
}

function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat
}

/** The name a reader would look for: the declared name, else what the function is assigned to or passed to. */
function ownName(node: WithBody, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const prefix = ts.isGetAccessorDeclaration(node) ? 'get ' : ts.isSetAccessorDeclaration(node) ? 'set ' : ''
  if (node.name) return prefix + node.name.getText(source)
  let child: ts.Node = node
  let parent = node.parent
  while (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent)) {
    child = parent
    parent = parent.parent
  }
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText(source)
  if (ts.isBinaryExpression(parent) && parent.right === child) return short(parent.left.getText(source))
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression !== child) {
    return `callback of ${ts.isNewExpression(parent) ? 'new ' : ''}${short(parent.expression.getText(source))}()`
  }
  if (ts.isExportAssignment(parent)) return 'default export'
  return '(anonymous)'
}

/** Every function with a body in one file, with its span in lines. */
function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1
  const spans: FunctionSpan[] = []
  const visit = (node: ts.Node, outer: readonly string[]): void => {
    let path = outer
    if (ts.isClassLike(node)) path = [...outer, node.name?.getText(source) ?? '(class)']
    // Methods of `const vllm = { info() {} }` read as `vllm > info`.
    if (ts.isObjectLiteralExpression(node) && ts.isVariableDeclaration(node.parent))
      path = [...outer, node.parent.name.getText(source)]
    if (hasBody(node)) {
      path = [...outer, ownName(node, source)]
      const line = lineOf(node.getStart(source))
      spans.push({ file, name: path.join(' > '), line, lines: lineOf(node.getEnd()) - line + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, path))
  }
  visit(source, [])
  return spans
}

function describeSpan(s: FunctionSpan): string {
  return `src/${s.file}:${s.line} ${s.name}: ${s.lines} lines (limit ${MAX_LINES})`
}

describe('function length', () => {
  it(`keeps every function in src/ within ${MAX_LINES} lines`, () => {
    const spans = sourceFiles().flatMap((f) => functionSpans(f.path, f.text))
    expect(spans.length).toBeGreaterThan(300)
    const offenders = spans
      .filter((s) => s.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
    expect(offenders.map(describeSpan)).toEqual([])
  })

  it('names and measures each kind of function', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  step(${i})`).join('\n')
    const text = [
      `export function declared() {\n${body(59)}\n}`, // 61 lines
      `const assigned = async (x: number) => {\n${body(58)}\n}`, // 60 lines
      `export class Store {\n  get size() {\n    return 1\n  }\n  constructor() {}\n}`,
      `const api = {\n  measure(o: unknown) {\n    const inner = function () {\n      return o\n    }\n    return inner\n  },\n}`,
      `items.forEach((item) => {\n  use(item)\n})`,
      `// function commented() {}`,
    ].join('\n')
    const spans = functionSpans('x.ts', text).map((s) => [s.name, s.line, s.lines])
    expect(spans).toEqual([
      ['declared', 1, 61],
      ['assigned', 62, 60],
      ['Store > get size', 123, 3],
      ['Store > constructor', 126, 1],
      ['api > measure', 129, 6],
      ['api > measure > inner', 130, 3],
      ['callback of items.forEach()', 136, 3],
    ])
  })
})
