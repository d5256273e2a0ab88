import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../src/core/random.js'
import { formatNumber } from '../../src/core/format.js'
import type { GateConfig } from '../../src/core/plan.js'
import { trendBand } from '../../src/report/pages/dashboard-band.js'
import {
  CHART,
  linePath,
  niceTicks,
  tickLabels,
  trendChart,
  trendReference,
  trendScale,
  xOf,
  type Trend,
} from '../../src/report/pages/dashboard-chart.js'

const PLOT_HEIGHT = CHART.height - CHART.top - CHART.bottom
const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }

/** The absolute vertices of a line path as linePath writes it (`M x y`, relative `l` pairs, `h0`). */
function vertices(d: string): [number, number][] {
  const out: [number, number][] = []
  for (const [, x, y, rest] of d.matchAll(/M(-?\d+) (-?\d+)((?:h0|l[^M]*)?)/g)) {
    let at: [number, number] = [Number(x), Number(y)]
    out.push(at)
    const steps = /^l(.*)$/.exec(rest)?.[1].match(/-?\d+/g)?.map(Number) ?? []
    for (let k = 0; k < steps.length; k += 2) out.push((at = [at[0] + steps[k], at[1] + steps[k + 1]]))
  }
  return out
}

function parse(svg: string) {
  const band = /<rect class="band" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"><title>([^<]*)<\/title>/.exec(svg)
  const d = /<path class="line" d="([^"]*)"/.exec(svg)?.[1] ?? ''
  const ticks = [...svg.matchAll(/<text x="\d+" y="\d+">([^<]*)<\/text>/g)].map((m) => m[1])
  return {
    band: band && { y: Number(band[2]), height: Number(band[4]), title: band[5] },
    points: vertices(d),
    ticks,
  }
}

const chart = (values: (number | null)[], shifts: number[] = [], gate: GateConfig | undefined = GATE) => {
  const reference = trendReference(values, shifts)
  const band = reference === undefined ? undefined : trendBand('decode', reference, gate)
  const trend: Trend = { values, shifts, label: 'decode tok/s', unit: 'tok/s', band }
  return { svg: trendChart(trend, ''), band, reference }
}

describe('niceTicks', () => {
  // Ranges over eleven orders of magnitude, from 1e-4 of their size to 10 times it, some crossing zero.
  const random = mulberry32(24)
  const ranges = Array.from({ length: 200 }, () => {
    const scale = 10 ** (random() * 11 - 5)
    const lo = (random() * 2 - 0.5) * scale
    return [lo, lo + scale * 10 ** (random() * 5 - 4)]
  })

  it.each(ranges)('covers %f … %f with 3–6 ticks at a 1-2-5 step', (lo, hi) => {
    const ticks = niceTicks(lo, hi)
    expect(ticks.length).toBeGreaterThanOrEqual(3)
    expect(ticks.length).toBeLessThanOrEqual(6)
    expect(ticks[0]).toBeLessThanOrEqual(lo)
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(hi)
    const step = ticks[1] - ticks[0]
    const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9)
    expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6)).toBe(true)
    // Each tick a whole multiple of the step, up to the doubles' precision.
    const exact = 10 ** Math.floor(Math.log10(step) + 1e-9) * [1, 2, 5].find((m) => Math.abs(mantissa - m) < 1e-6)!
    ticks.forEach((t, k) => {
      const multiple = Math.round(ticks[0] / exact) + k
      expect(Math.abs(t - multiple * exact)).toBeLessThanOrEqual(Math.abs(t) * 1e-12 + exact * 1e-9)
    })
  })

  it('labels ticks with formatNumber, and with the step’s decimals where that would repeat a label', () => {
    expect(tickLabels(niceTicks(26.9, 30.1))).toEqual(['26.0', '27.0', '28.0', '29.0', '30.0', '31.0'])
    // 10.00 … 10.20 by 0.05: formatNumber’s one decimal would read 10.1 twice.
    const tight = niceTicks(10.01, 10.19)
    expect(tight).toEqual([10, 10.05, 10.1, 10.15, 10.2])
    expect(tickLabels(tight)).toEqual(['10.00', '10.05', '10.10', '10.15', '10.20'])
  })
})

describe('trendReference', () => {
  it('is the median of the newest 5 measured runs from the last level shift on', () => {
    expect(trendReference([40, 40, 40, 40, 40, 40], [])).toBe(40)
    // Before the shift at 3: ignored. After it: 100, 10, 20, 30, 40, 50 → the newest five, median 30.
    expect(trendReference([5, 5, 5, 100, 10, null, 20, 30, 40, 50], [3])).toBe(30)
    expect(trendReference([null, null], [])).toBeUndefined()
  })
})

describe('trendChart', () => {
  it('draws 28.4 → 28.5 under a 5% limit inside the band, the step a sliver of the plot, not its height', () => {
    const { svg, band } = chart([28.4, 28.5])
    const { band: rect, points, ticks } = parse(svg)
    expect(band!.title).toBe('limit ±5% around 28.4 tok/s')
    expect(rect!.title).toBe(band!.title)
    expect(points).toHaveLength(2)
    for (const [, y] of points) {
      expect(y).toBeGreaterThanOrEqual(rect!.y)
      expect(y).toBeLessThanOrEqual(rect!.y + rect!.height)
    }
    // 0.1 of a range at least 10% of 28.45 wide: about 3% of the plot, and rounding moves it by one unit at most.
    expect(Math.abs(points[0][1] - points[1][1])).toBeLessThan(0.05 * PLOT_HEIGHT)
    expect(points[0][1]).toBeGreaterThan(points[1][1])
    expect(ticks.length).toBeGreaterThanOrEqual(3)
    expect(ticks.every((t) => /^\d+\.\d$/.test(t))).toBe(true)
    expect(svg).toContain(`<text class="unit" x="${CHART.left - 6}" y="16">tok/s</text>`)
  })

  it('holds the band, which holds the reference, within the y range: ticks span both', () => {
    const values = [50, 51, 49, 50.5, 50]
    const reference = trendReference(values, [])!
    const band = trendBand('decode', reference, GATE)
    expect(band.low).toBeLessThan(reference)
    expect(band.high).toBeGreaterThan(reference)
    const scale = trendScale(values, band)
    expect(scale.ticks[0]).toBeLessThanOrEqual(band.low)
    expect(scale.ticks.at(-1)).toBeGreaterThanOrEqual(band.high)
    const { band: rect } = parse(chart(values).svg)
    expect(scale.y(reference)).toBeGreaterThan(rect!.y)
    expect(scale.y(reference)).toBeLessThan(rect!.y + rect!.height)
    expect(rect!.y).toBeGreaterThanOrEqual(CHART.top)
    expect(rect!.y + rect!.height).toBeLessThanOrEqual(CHART.height - CHART.bottom)
  })

  it('takes the band’s reference from after a level shift, and still shows the runs before it', () => {
    const values = [40, 40.4, 39.8, 40, 48, 48.2, 47.9, 48]
    const { svg, reference } = chart(values, [4])
    expect(reference).toBe(48)
    expect(parse(svg).band!.title).toBe(`limit ±5% around ${formatNumber(48)} tok/s`)
    expect(svg).toContain(`<line class="shift" x1="${xOf(4, 8)}"`)
    const { ticks } = trendScale(values, trendBand('decode', 48, GATE))
    expect(ticks[0]).toBeLessThanOrEqual(39.8)
  })

  it("keeps a share's axis within its bounds: 0–100 %, ending at 100 for a band that reaches it", () => {
    const band = { low: 93, high: 100, title: '' }
    const bounded = trendScale([98, 99.5, 97], band, [0, 100])
    expect(bounded.ticks.at(-1)).toBe(100)
    expect(bounded.ticks[0]).toBeLessThanOrEqual(93)
    expect(bounded.ticks[0]).toBeGreaterThanOrEqual(0)
    // Unbounded, the padding would run the axis past what a share can be.
    expect(trendScale([98, 99.5, 97], band).ticks.at(-1)).toBeGreaterThan(100)
  })

  it('puts a vertex (a point) at every measured run and leaves gaps as gaps', () => {
    const values = [30, 31, null, 32, null, 33, 34]
    const scale = trendScale(values)
    const d = linePath(values, scale.y)
    expect(d.match(/M/g)).toHaveLength(3)
    expect(d).toContain('h0')
    const expected = values.flatMap((v, i) => (v === null ? [] : [[xOf(i, values.length), scale.y(v)]]))
    expect(vertices(d)).toEqual(expected)
  })

  it('draws a single run as a point in the middle', () => {
    const { svg } = chart([28.4])
    const { points, band } = parse(svg)
    expect(points).toEqual([[xOf(0, 1), expect.any(Number)]])
    expect(points[0][0]).toBe(CHART.left + (CHART.width - CHART.left - CHART.right) / 2)
    expect(points[0][1]).toBeGreaterThan(band!.y)
    expect(svg).toMatch(/<path class="line" d="M\d+ \d+h0"\/>/)
  })

  it('renders a series no run measured without NaN: no band, no ticks, says so', () => {
    const { svg } = chart([null, null, null])
    expect(svg).not.toMatch(/NaN|Infinity|undefined/)
    expect(svg).not.toContain('class="band"')
    expect(svg).toContain('>not measured</text>')
    expect(svg).toContain('data-n="3"')
  })
})

describe('trendBand', () => {
  it('uses the gate’s own limit, the larger of max-regression and min-delta, and says whose limit it is', () => {
    const gate: GateConfig = {
      decode: { maxRegression: 0.03, stat: 'mean' },
      ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
    }
    expect(trendBand('decode', 40, gate).note).toBe("shaded: the gate's limit ±3% around the reference 40.0 tok/s")
    // 50 ms of 250 ms is 20%, wider than 10%: the verdict's limit (compare/reference.ts relativeLimit).
    const ttft = trendBand('ttft', 250, gate)
    expect([ttft.low, ttft.high]).toEqual([200, 300])
    expect(ttft.note).toBe("shaded: the gate's limit ±20% (its min-delta 50 ms) around the reference 250 ms")
    expect(trendBand('ttft', 1000, gate).title).toBe('limit ±10% around 1,000 ms')
  })

  it('falls back to the built-in limit, else 5%, and says the metric is not gated', () => {
    expect(trendBand('decode', 40, undefined).note).toBe(
      'shaded: the default limit ±5% around the reference 40.0 tok/s (no gate given)',
    )
    expect(trendBand('ttft', 1000, undefined).limit).toBe(0.1)
    const startup = trendBand('startup', 20, GATE)
    expect([startup.low, startup.high]).toEqual([19, 21])
    expect(startup.note).toContain('(not in the gate)')
  })
})
