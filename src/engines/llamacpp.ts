// placeholder until the adapter lands
import type { EngineAdapter } from './types.js'
export const llamacpp = { name: 'llamacpp' } as unknown as EngineAdapter
