// placeholder until the adapter lands
import type { EngineAdapter } from './types.js'
export const sim = { name: 'sim' } as unknown as EngineAdapter
