import { describe, expect, it } from 'vitest'
import { BLOCK_SIZE, promptIndices } from '../../src/bench/prompts/indices.js'

const take = (f: () => number, n: number) => Array.from({ length: n }, f)

describe('prompt indices', () => {
  it('a cell gets the same indices whatever ran before it on the client, and the smoke and calibrations do not move them', () => {
    const alone = promptIndices()
    const first = take(() => alone.cell('chat'), 40)
    const busy = promptIndices()
    take(() => busy.service(), 17)
    take(() => busy.cell('long'), 300)
    take(() => busy.cell('code'), 5)
    expect(take(() => busy.cell('chat'), 40)).toEqual(first)
  })

  it('every index of a client is unique, across cells, the service block and a cell that runs past its block', () => {
    const ix = promptIndices()
    const all = [
      ...take(() => ix.service(), 50),
      ...take(() => ix.cell('a'), BLOCK_SIZE + 10),
      ...Array.from({ length: 60 }, (_, i) => take(() => ix.cell(`cell-${i}`), 20)).flat(),
    ]
    expect(new Set(all).size).toBe(all.length)
  })

  it('a cell measured again on the same client goes on where it stopped (adaptive rounds repeat no prompt)', () => {
    const ix = promptIndices()
    const once = take(() => ix.cell('chat'), 10)
    const more = take(() => ix.cell('chat'), 10)
    expect(more[0]).toBe(once[9] + 1)
  })
})
