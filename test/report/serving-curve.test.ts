// The serving curve (SPEC §16): output tok/s against per-user tok/s over a concurrency sweep, baseline and current,
// as an inline SVG whose points sit where the scale puts the measured figures, with both axes from 0.
import { describe, expect, it } from 'vitest'
import { renderDashboard, renderLeaderboard } from '../../src/report/index.js'
import {
  CURVE,
  curveScale,
  niceAxis,
  servingCurveSvg,
  type CurveLine,
  type CurvePoint,
} from '../../src/report/serving-curve.js'
import { historyEntry } from '../../src/store/index.js'
import {
  CONCURRENCIES,
  SWEEP_MODEL,
  TARGETS,
  perUserAt,
  sweepCells,
  sweepDashboard,
  sweepRun,
} from '../../harness/sweep-fixture.js'
import { flatCell, resultsFile } from '../helpers/builders.js'

interface Circle {
  target: string
  side: string
  concurrency: number
  cx: number
  cy: number
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]

function circles(svg: string): Circle[] {
  return [...svg.matchAll(/<circle class="point"[^>]*>/g)].map(([tag]) => ({
    target: attr(tag, 'data-target')!,
    side: attr(tag, 'data-side')!,
    concurrency: Number(attr(tag, 'data-concurrency')),
    cx: Number(attr(tag, 'cx')),
    cy: Number(attr(tag, 'cy')),
  }))
}

function paths(svg: string): { target: string; side: string; d: string }[] {
  return [...svg.matchAll(/<path data-target="([^"]*)" data-side="([^"]*)" d="([^"]*)"\/>/g)].map((m) => ({
    target: m[1],
    side: m[2],
    d: m[3],
  }))
}

function ticks(svg: string, axis: 'x' | 'y'): string[] {
  const group = new RegExp(`<g class="${axis}-axis">(.*?)</g>`).exec(svg)![1]
  return [...group.matchAll(/<text class="tick"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
}

const points = (values: [number, number, number][]): CurvePoint[] =>
  values.map(([concurrency, perUser, output]) => ({ concurrency, perUser, output }))

describe('niceAxis', () => {
  it.each([
    [61, 80, 20, [0, 20, 40, 60, 80]],
    [100, 100, 20, [0, 20, 40, 60, 80, 100]],
    [239.4, 250, 50, [0, 50, 100, 150, 200, 250]],
    [0.37, 0.4, 0.1, [0, 0.1, 0.2, 0.3, 0.4]],
    [4348, 5000, 1000, [0, 1000, 2000, 3000, 4000, 5000]],
    [0, 1, 0.2, [0, 0.2, 0.4, 0.6, 0.8, 1]],
  ])('%d → 0 … %d by %d', (max, top, step, expected) => {
    expect(niceAxis(max)).toEqual({ max: top, step, ticks: expected })
  })
})

describe('servingCurveSvg', () => {
  const lines: CurveLine[] = [
    {
      target: 'a',
      side: 'current',
      color: '#000',
      points: points([
        [1, 40, 40],
        [2, 35, 70],
        [4, 28, 112],
        [8, 20, 160],
      ]),
    },
    {
      target: 'a',
      side: 'baseline',
      color: '#000',
      points: points([
        [1, 44, 44],
        [2, 38, 76],
        [4, 31, 124],
        [8, 22, 176],
      ]),
    },
  ]
  const svg = servingCurveSvg(lines, 'chat')
  const scale = curveScale(44, 176)

  it('puts every point at the scale’s coordinates of its measured figures, and the path through them', () => {
    expect(scale.x.max).toBe(50)
    expect(scale.y.max).toBe(200)
    const expected = lines.flatMap((l) =>
      l.points.map((p) => ({
        target: 'a',
        side: l.side,
        concurrency: p.concurrency,
        cx: scale.px(p.perUser),
        cy: scale.py(p.output),
      })),
    )
    expect(circles(svg).sort((a, b) => a.side.localeCompare(b.side) || a.concurrency - b.concurrency)).toEqual(
      expected.sort((a, b) => a.side.localeCompare(b.side) || a.concurrency - b.concurrency),
    )
    // The scale itself: 0 at the plot's left and bottom edge, the axis maximum at its right and top edge.
    expect([scale.px(0), scale.py(0)]).toEqual([CURVE.left, CURVE.height - CURVE.bottom])
    expect([scale.px(50), scale.py(200)]).toEqual([CURVE.width - CURVE.right, CURVE.top])
    expect(scale.px(20)).toBeCloseTo(CURVE.left + (20 / 50) * (CURVE.width - CURVE.left - CURVE.right), 1)
    const current = paths(svg).find((p) => p.side === 'current')!
    expect(current.d).toBe(
      lines[0].points.map((p, i) => `${i ? 'L' : 'M'}${scale.px(p.perUser)} ${scale.py(p.output)}`).join(''),
    )
  })

  it('draws one path per side, labelled axes from 0 with tick values, and names each current point’s concurrency', () => {
    expect(paths(svg).map((p) => `${p.target}:${p.side}`)).toEqual(['a:baseline', 'a:current'])
    expect(ticks(svg, 'x')).toEqual(['0', '10', '20', '30', '40', '50'])
    expect(ticks(svg, 'y')).toEqual(['0', '50', '100', '150', '200'])
    expect(svg).toContain('>per-user tok/s</text>')
    expect(svg).toContain('>output tok/s</text>')
    expect([...svg.matchAll(/class="point-label"[^>]*>(c\d+)</g)].map((m) => m[1])).toEqual(['c1', 'c2', 'c4', 'c8'])
  })

  it('never stretches a small difference to the full height: two figures 1% apart sit 1% apart', () => {
    const close: CurveLine[] = [
      {
        target: 'a',
        side: 'current',
        color: '#000',
        points: points([
          [1, 50, 100],
          [2, 49.9, 101],
        ]),
      },
    ]
    const [low, high] = circles(servingCurveSvg(close, 'close'))
    const bottom = CURVE.height - CURVE.bottom
    const plot = bottom - CURVE.top
    expect(ticks(servingCurveSvg(close, 'close'), 'y')[0]).toBe('0')
    expect((bottom - high.cy) / (bottom - low.cy)).toBeCloseTo(1.01, 2)
    expect(low.cy - high.cy).toBeLessThan(plot * 0.02)
  })

  it('escapes a target id in its attributes and hover text', () => {
    const hostile = servingCurveSvg(
      [{ target: '"><script>alert(1)</script>', side: 'current', color: '#000', points: points([[1, 5, 5]]) }],
      '<b>',
    )
    expect(hostile).not.toContain('<script>')
    expect(hostile).not.toContain('<b>')
    expect(hostile).toContain('data-target="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
  })
})

describe("the run's leaderboard page", () => {
  const run = sweepRun()
  const page = renderLeaderboard(run)
  const section = /<section id="serving-curves">[\s\S]*?<\/section>/.exec(page)![0]

  it('draws one curve for the sweep: each target a path of this run and one of the baseline, four points each', () => {
    expect([...section.matchAll(/<svg class="curve"/g)]).toHaveLength(1)
    expect(
      paths(section)
        .map((p) => `${p.target}:${p.side}`)
        .sort(),
    ).toEqual(TARGETS.flatMap((t) => [`${t}:baseline`, `${t}:current`]).sort())
    for (const side of ['current', 'baseline'])
      for (const target of TARGETS)
        expect(
          circles(section)
            .filter((c) => c.side === side && c.target === target)
            .map((c) => c.concurrency),
        ).toEqual([...CONCURRENCIES])
  })

  it("puts this run's points at its figures and the baseline's at the figures its verdicts compared with", () => {
    const all = run.cells.flatMap((c) => [
      { x: c.metrics!.per_user_tps, y: c.metrics!.output_tps },
      {
        x: c.verdict.reference!['output-throughput']!.value / c.workload.concurrency,
        y: c.verdict.reference!['output-throughput']!.value,
      },
    ])
    const scale = curveScale(Math.max(...all.map((p) => p.x)), Math.max(...all.map((p) => p.y)))
    TARGETS.forEach((target, t) =>
      CONCURRENCIES.forEach((c) => {
        const at = (side: string) =>
          circles(section).find((p) => p.target === target && p.side === side && p.concurrency === c)!
        const current = perUserAt(t, c, 0.9)
        const baseline = perUserAt(t, c, 1)
        expect([at('current').cx, at('current').cy]).toEqual([scale.px(current), scale.py(current * c)])
        expect(at('baseline').cx).toBeCloseTo(scale.px(baseline), 5)
        expect(at('baseline').cy).toBeCloseTo(scale.py(baseline * c), 5)
      }),
    )
  })

  it('names the baseline and keeps a hostile model name as text', () => {
    expect(section).toContain('baseline aaaaaaa')
    expect(section).not.toContain(SWEEP_MODEL)
    expect(section).toContain('&lt;img src=x onerror=alert(1)&gt;')
  })

  it('has no curve section when no cell is a sweep point', () => {
    const plain = renderLeaderboard(resultsFile([flatCell('t/chat', {})]))
    expect(plain).not.toContain('serving-curves')
    expect(plain).not.toContain('svg.curve')
  })
})

describe('the dashboard', () => {
  const input = sweepDashboard([1.2, 1, 0.9])
  const page = renderDashboard(input)
  const section = /<section id="serving-curves">[\s\S]*?<\/section>/.exec(page)![0]

  it('draws the latest stored run solid and the default-branch run before it dashed', () => {
    const all = [...sweepCells(0.9), ...sweepCells(1)].map((c) => ({
      x: c.metrics!.per_user_tps,
      y: c.metrics!.output_tps,
    }))
    const scale = curveScale(Math.max(...all.map((p) => p.x)), Math.max(...all.map((p) => p.y)))
    expect(paths(section)).toHaveLength(4)
    for (const [side, speed] of [
      ['current', 0.9],
      ['baseline', 1],
    ] as const) {
      const got = circles(section).filter((p) => p.side === side && p.target === TARGETS[1])
      expect(got.map((p) => [p.concurrency, p.cx])).toEqual(
        CONCURRENCIES.map((c) => [c, scale.px(perUserAt(1, c, speed))]),
      )
      got.forEach((p) => expect(p.cy).toBeCloseTo(scale.py(perUserAt(1, p.concurrency, speed) * p.concurrency), 5))
    }
    expect(section).toContain(`previous run ${input.history[1].sha.slice(0, 7)}`)
    expect(section).not.toContain(SWEEP_MODEL)
  })

  it('draws only the latest run while the history holds one run of the sweep', () => {
    const single = renderDashboard(sweepDashboard([1]))
    expect(paths(single).map((p) => p.side)).toEqual(['current', 'current'])
    expect(single).toContain('· no baseline')
  })

  it("is fed by history entries that keep a sweep point's output tok/s even when the gate does not judge it", () => {
    const entry = historyEntry(resultsFile([...sweepCells(1), flatCell('t/chat', {})]), {
      'qwen-fp8': {},
      'qwen-nvfp4': {},
      t: {},
    })
    expect(entry.cells['qwen-fp8/chat-1k@c4'].output_tps.steady).toBeCloseTo(perUserAt(0, 4) * 4, 9)
    expect(entry.cells['t/chat'].output_tps).toBeUndefined()
  })
})
