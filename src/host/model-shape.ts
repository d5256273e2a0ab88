/**
 * What a decode step reads besides the weights, from the model's own description: the KV cache bytes one token adds
 * and, for a mixture of experts, how many experts a token routes to. From a Hugging Face `config.json`
 * (transformers' `PretrainedConfig` fields: `num_hidden_layers`, `num_key_value_heads`, `head_dim` or
 * `hidden_size / num_attention_heads`, `layer_types` of hybrid models, DeepSeek's `kv_lora_rank` +
 * `qk_rope_head_dim` latent, `num_experts_per_tok` of `num_experts` / `num_local_experts` / `n_routed_experts`) or
 * a GGUF's metadata (llama.cpp `src/llama-arch.cpp` keys: `<arch>.block_count`, `<arch>.attention.head_count_kv`,
 * `<arch>.attention.key_length`, `<arch>.expert_count`, `<arch>.expert_used_count`). Pure.
 */
import type { GgufValue } from './gguf-header.js'

export interface ModelShape {
  kvPerToken?: number
  experts?: { count: number; used: number }
}

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 1e7 ? v : undefined

/** The layers that keep a KV cache: all of them, or those `layer_types` / `full_attention_interval` name as attention. */
function attentionLayers(c: Record<string, unknown>, layers: number): number {
  const types = c.layer_types
  if (Array.isArray(types) && types.length)
    return types.filter((t) => typeof t === 'string' && /attention/.test(t) && !/linear/.test(t)).length
  const interval = count(c.full_attention_interval)
  return interval ? Math.floor(layers / interval) : layers
}

/** KV bytes per token and experts from a `config.json` (a multimodal one's `text_config`). */
export function configShape(config: unknown, kvBytes: number): ModelShape {
  if (typeof config !== 'object' || config === null) return {}
  const outer = config as Record<string, unknown>
  const inner = outer.text_config
  const c = (typeof inner === 'object' && inner !== null && 'num_hidden_layers' in inner ? inner : outer) as Record<
    string,
    unknown
  >
  const shape: ModelShape = {}
  const layers = count(c.num_hidden_layers)
  const heads = count(c.num_attention_heads)
  const kvHeads = count(c.num_key_value_heads) ?? heads
  const headDim = count(c.head_dim) ?? (heads && count(c.hidden_size) ? Number(c.hidden_size) / heads : undefined)
  const latent = count(c.kv_lora_rank)
  if (layers && latent) shape.kvPerToken = layers * (latent + (count(c.qk_rope_head_dim) ?? 0)) * kvBytes
  else if (layers && kvHeads && headDim) shape.kvPerToken = attentionLayers(c, layers) * kvHeads * headDim * 2 * kvBytes
  const experts = count(c.num_experts) ?? count(c.num_local_experts) ?? count(c.n_routed_experts)
  const used = count(c.num_experts_per_tok)
  if (experts && used) shape.experts = { count: experts, used }
  return shape
}

/** KV bytes per token and experts from a GGUF's metadata. */
export function ggufShape(metadata: ReadonlyMap<string, GgufValue>, kvBytes: number): ModelShape {
  const arch = metadata.get('general.architecture')
  if (typeof arch !== 'string') return {}
  const get = (key: string) => metadata.get(`${arch}.${key}`)
  const shape: ModelShape = {}
  const layers = count(get('block_count'))
  const heads = count(get('attention.head_count'))
  const embd = count(get('embedding_length'))
  const keyLength = count(get('attention.key_length')) ?? (heads && embd ? embd / heads : undefined)
  const valueLength = count(get('attention.value_length')) ?? keyLength
  const kvHeads = get('attention.head_count_kv') ?? heads
  if (layers && keyLength && valueLength) {
    const perHead = (keyLength + valueLength) * kvBytes
    if (Array.isArray(kvHeads)) shape.kvPerToken = kvHeads.reduce((sum, h) => sum + h, 0) * perHead
    else if (count(kvHeads)) {
      const interval = count(get('full_attention_interval'))
      shape.kvPerToken = (interval ? Math.floor(layers / interval) : layers) * (kvHeads as number) * perHead
    }
  }
  const experts = count(get('expert_count'))
  const used = count(get('expert_used_count'))
  if (experts && used) shape.experts = { count: experts, used }
  return shape
}

/**
 * What a decode step does with a tensor, by its name (transformers' and llama.cpp's `src/llama-arch.cpp` naming):
 * `head` the output projection, read whole every step; `embed` the input embeddings, of which a step reads one row
 * per token — the lm_head itself when the model ties them and has no head of its own; `unread` a vision tower or a
 * multi-token-prediction head a plain decode step does not run; `expert` a mixture-of-experts expert.
 */
export type TensorRole = 'head' | 'embed' | 'unread' | 'expert' | 'body'
export const TENSOR_ROLES: readonly TensorRole[] = ['head', 'embed', 'unread', 'expert', 'body']

export function tensorRole(name: string): TensorRole {
  if (/(^|\.)lm_head\.|^output\.weight$/.test(name)) return 'head'
  if (/(^|\.)(embed_tokens|wte|word_embeddings)\.|^token_embd\./.test(name)) return 'embed'
  if (/(^|\.)(visual|vision_tower|vision_model|multi_modal_projector|mm_projector|mtp)\.|\.nextn\./.test(name))
    return 'unread'
  if (/\.experts\.|_exps\b/.test(name)) return 'expert'
  return 'body'
}

export const noRoles = (): Record<TensorRole, number> => ({ head: 0, embed: 0, unread: 0, expert: 0, body: 0 })
