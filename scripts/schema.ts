/** Writes schema/llm-bench.schema.json from the zod schema (run: npx tsx scripts/schema.ts). */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { matrixJsonSchema } from '../src/config/schema.js'

export const SCHEMA_FILE = fileURLToPath(new URL('../schema/llm-bench.schema.json', import.meta.url))

export function renderSchema(): string {
  return `${JSON.stringify(matrixJsonSchema(), null, 2)}\n`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, renderSchema())
  console.log(`wrote ${SCHEMA_FILE}`)
}
