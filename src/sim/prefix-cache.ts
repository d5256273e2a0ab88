/**
 * Automatic prefix caching as vLLM v1 does it (`vllm/v1/core/kv_cache_utils.py`, `hash_block_tokens`): a prompt's
 * full blocks of BLOCK_TOKENS tokens are hashed, each hash chained to the previous block's, and a new prompt's
 * leading blocks whose hashes are cached skip prefill. A hit never covers the whole prompt: the last token is
 * computed again, for its logits. Blocks enter the cache when their prompt's prefill completes (a request that
 * arrives while another is still prefilling the same prefix does not hit it), and the oldest leave first once
 * the cache holds `capacity` blocks.
 */

/** vLLM's default KV block size (`--block-size 16`). */
export const BLOCK_TOKENS = 16

/** FNV-1a over the previous block's hash and this block's ids: equal chains, equal hashes. */
function blockHash(previous: number, ids: readonly number[], from: number): number {
  let h = (0x811c9dc5 ^ previous) >>> 0
  for (let i = from; i < from + BLOCK_TOKENS; i++) h = Math.imul(h ^ (ids[i] >>> 0), 0x01000193) >>> 0
  return h
}

function chain(ids: readonly number[]): number[] {
  const hashes: number[] = []
  for (let at = 0, h = 0; at + BLOCK_TOKENS <= ids.length; at += BLOCK_TOKENS) hashes.push((h = blockHash(h, ids, at)))
  return hashes
}

export class PrefixCache {
  /** Cached block hashes, oldest first (a Map keeps insertion order). */
  private readonly blocks = new Map<number, true>()

  constructor(private readonly capacity = 65_536) {}

  /** Tokens of `ids` the cache serves: its leading cached blocks, at most all but the last token. */
  hit(ids: readonly number[]): number {
    let blocks = 0
    for (const h of chain(ids)) {
      if (!this.blocks.has(h)) break
      blocks++
    }
    return Math.min(blocks * BLOCK_TOKENS, Math.max(ids.length - 1, 0))
  }

  /** Caches every full block of a prompt whose prefill completed; a block already cached becomes the newest. */
  insert(ids: readonly number[]): void {
    for (const h of chain(ids)) {
      this.blocks.delete(h)
      this.blocks.set(h, true)
    }
    while (this.blocks.size > this.capacity) this.blocks.delete(this.blocks.keys().next().value as number)
  }

  /** Drops every full block of a prompt (the `drafter-drops-prefix-cache` fault, server.ts). */
  drop(ids: readonly number[]): void {
    for (const h of chain(ids)) this.blocks.delete(h)
  }

  /** Forgets every cached block (vLLM's `reset_prefix_cache`); returns how many there were. */
  clear(): number {
    const blocks = this.blocks.size
    this.blocks.clear()
    return blocks
  }
}
