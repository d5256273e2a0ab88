/** The simulator's prefix cache: vLLM's automatic prefix caching in 16-token blocks, hashed in a chain. */
import { describe, expect, it } from 'vitest'
import { BLOCK_TOKENS, PrefixCache } from '../../src/sim/prefix-cache.js'

const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i)

describe('PrefixCache', () => {
  it('serves the leading whole blocks a cached prompt shares, never the last token', () => {
    const cache = new PrefixCache()
    const first = [...ids(900), ...ids(124, 10_000)]
    expect(cache.hit(first)).toBe(0)
    cache.insert(first)
    // Another request with the same 900-token prefix: 56 whole blocks (896 tokens) match.
    expect(cache.hit([...ids(900), ...ids(124, 20_000)])).toBe(56 * BLOCK_TOKENS)
    // The same prompt again: every block but the last token, which is computed for its logits.
    expect(cache.hit(first)).toBe(1023)
    expect(cache.hit(ids(32))).toBe(31)
  })

  it('matches by chain: a block after a differing one is not a hit even with equal ids', () => {
    const cache = new PrefixCache()
    cache.insert(ids(64))
    const changed = ids(64)
    changed[3] = 99_999
    expect(cache.hit(changed)).toBe(0)
    changed[3] = 3
    changed[40] = 99_999
    expect(cache.hit(changed)).toBe(2 * BLOCK_TOKENS)
  })

  it('drops the oldest blocks beyond its capacity', () => {
    const cache = new PrefixCache(4)
    cache.insert(ids(64))
    cache.insert(ids(64, 1_000))
    expect(cache.hit(ids(64))).toBe(0)
    expect(cache.hit(ids(64, 1_000))).toBe(63)
  })
})
