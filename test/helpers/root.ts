/** The repository's root folder, for tests that read its files (src/, fixtures/, docs/, package.json). */
import { resolve } from 'node:path'

export const ROOT = resolve(import.meta.dirname, '../..')
