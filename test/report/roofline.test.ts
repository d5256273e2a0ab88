/**
 * A cell's roofline in the report's per-cell details (`decode 21.9 tok/s · 64 % of roofline`, the ceiling and
 * where its figures came from), in the leaderboard's decode column, why a cell has none said once for every cell
 * it applies to, and the `roofline` field read back from a results file.
 */
import { describe, expect, it } from 'vitest'
import type { RooflineFigures } from '../../src/core/roofline.js'
import { renderLeaderboard } from '../../src/report/index.js'
import { metricsSection } from '../../src/report/markdown/details.js'
import { readResults } from '../../src/store/index.js'
import { flatCell, readProblems, resultsFile } from '../helpers/builders.js'

const ROOFLINE: RooflineFigures = {
  ceilingTps: 34.22,
  share: 0.64,
  decodeTps: 21.9,
  bandwidth: { bytesPerS: 273e9, source: 'NVIDIA GB10: NVIDIA DGX Spark data sheet' },
  step: { bytes: 7.977e9, weights: 7.9e9, kv: 0.077e9, kvPerToken: 65536, source: 'gguf headers of m.gguf' },
  depth: 1088,
  concurrency: 1,
}
const NO_MODEL = { unavailable: 'model "Qwen/Qwen3.6-27B" is not a local path: set model-bytes for a roofline' }

describe('the roofline in the report', () => {
  it('says decode as a share of the roofline, with the ceiling and its sources, in the per-cell details', () => {
    const text = metricsSection([flatCell('t/chat', { decode: 21.9 }, 3, 1, { roofline: ROOFLINE })])!
    expect(text).toContain(
      'decode 21.9 tok/s · 64 % of roofline · ceiling 34.2 tok/s (273 GB/s from NVIDIA GB10: NVIDIA DGX Spark data sheet ÷ ' +
        '7.98 GB per step: weights 7.9 GB from gguf headers of m.gguf, KV 77 MB at depth 1,088 × 1)',
    )
  })

  it('says once why cells have none, naming each', () => {
    const cells = ['a', 'b'].map((id) => flatCell(`${id}/chat`, { decode: 20 }, 3, 1, { roofline: NO_MODEL }))
    const text = metricsSection(cells)!
    expect(text.match(/no roofline for/g)).toHaveLength(1)
    expect(text).toContain(`no roofline for a/chat, b/chat: ${NO_MODEL.unavailable}`)
    expect(text).not.toContain('of roofline')
  })

  it('shows the share beside decode tok/s in the leaderboard, the ceiling in its title', () => {
    const page = renderLeaderboard(resultsFile([flatCell('t/chat', { decode: 21.9 }, 3, 1, { roofline: ROOFLINE })]))
    expect(page).toMatch(
      />21\.9 <span class="dim" title="ceiling 34\.2 tok\/s \(273 GB\/s [^"]*">· 64 % of roofline<\/span>/,
    )
  })

  it('leaves the decode column as it was for a cell without one', () => {
    const page = renderLeaderboard(resultsFile([flatCell('t/chat', { decode: 21.9 }, 3, 1)]))
    expect(page).not.toContain('of roofline')
  })
})

describe('the roofline field of a results file', () => {
  it('round-trips, figures or the reason, and a file without it stays valid', () => {
    const cells = [
      flatCell('a/chat', { decode: 21.9 }, 3, 1, { roofline: ROOFLINE }),
      flatCell('b/chat', { decode: 20 }, 3, 1, { roofline: NO_MODEL }),
      flatCell('c/chat', { decode: 20 }),
    ]
    const read = readResults(JSON.stringify(resultsFile(cells)), 'results.json')
    expect(read.cells.map((c) => c.roofline)).toEqual([ROOFLINE, NO_MODEL, undefined])
  })

  it('is refused when malformed, naming the cell and the field', () => {
    const bad = resultsFile([
      flatCell('a/chat', { decode: 21.9 }, 3, 1, { roofline: { ...ROOFLINE, share: '64%' } as never }),
    ])
    expect(readProblems(JSON.stringify(bad), 'results.json').join('\n')).toContain(
      'cells[0].roofline.share: expected a number',
    )
  })
})
