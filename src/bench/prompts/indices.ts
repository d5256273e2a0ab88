/**
 * Which prompt index each request of a client gets. A cell's rounds take their indices from a block of BLOCK_SIZE
 * of their own, chosen by the cell's name (FNV-1a, then the next free block), so a cell sends the same prompts in
 * the same order in every run and in both arms of an A/B, whichever cells ran before it on the same launch. Greedy
 * decoding then makes a drafter's acceptance the same for the same round (llama-server with a draft model gave the
 * same acceptance in three runs of the same prompts), and the gate can pair it round by round. Block 0 serves the
 * smoke request and the calibrations. Indices stay unique over a client's life — no prefix cache serves one request
 * from another — while there are free blocks: BLOCKS × BLOCK_SIZE is the number of distinct `prompts: text`
 * openings (text-prompt.ts), and far below the word list's 64⁴ nonces.
 */
import { fnv1a } from '../../core/hash.js'

export const BLOCK_SIZE = 2048
export const BLOCKS = 128

export interface PromptIndices {
  /** The next index of the smoke request and the calibrations (block 0, round and round). */
  service(): number
  /** The next index of the named cell's requests; a cell past its block's end goes on in another free one. */
  cell(name: string): number
}

export function promptIndices(): PromptIndices {
  const taken = new Set<number>([0])
  const cells = new Map<string, { block: number; used: number }>()
  let service = 0
  /** The first free block from `from` on (1 … BLOCKS − 1); past them all, `from` again. */
  const claim = (from: number): number => {
    for (let i = 0; i < BLOCKS - 1; i++) {
      const block = 1 + ((from - 1 + i) % (BLOCKS - 1))
      if (!taken.has(block)) {
        taken.add(block)
        return block
      }
    }
    return from
  }
  return {
    service: () => service++ % BLOCK_SIZE,
    cell(name) {
      let c = cells.get(name)
      if (!c) cells.set(name, (c = { block: claim(1 + (fnv1a(name) % (BLOCKS - 1))), used: 0 }))
      if (c.used === BLOCK_SIZE) c = { block: claim(c.block), used: 0 }
      cells.set(name, c)
      return c.block * BLOCK_SIZE + c.used++
    },
  }
}
