// placeholder until the adapter lands
import type { EngineAdapter } from './types.js'
export const vllm = { name: 'vllm' } as unknown as EngineAdapter
