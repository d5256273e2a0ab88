// placeholder until the adapter lands
import type { EngineAdapter } from './types.js'
export const openai = { name: 'openai' } as unknown as EngineAdapter
