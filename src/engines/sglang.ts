// placeholder until the adapter lands
import type { EngineAdapter } from './types.js'
export const sglang = { name: 'sglang' } as unknown as EngineAdapter
