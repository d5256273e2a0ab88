/** Fixture files for config tests, written into one temp dir per test file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'

export interface TempDir {
  path: string
  /** Write `content` (text as is, anything else as YAML or JSON by extension); returns the file name. */
  write(name: string, content: unknown): string
  remove(): void
}

export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'llm-bench-config-'))
  return {
    path,
    write(name, content) {
      const text =
        typeof content === 'string'
          ? content
          : name.endsWith('.json')
            ? JSON.stringify(content, null, 2)
            : stringify(content)
      writeFileSync(join(path, name), text)
      return name
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  }
}

/** A small valid file; tests override parts of it. */
export function baseConfig(): Record<string, any> {
  return {
    version: 1,
    scenarios: {
      'chat-1k': { 'input-tokens': 1024, 'output-tokens': 128, concurrency: 8 },
      'long-8k': { 'input-tokens': 8192, 'output-tokens': 256, concurrency: 1 },
    },
    targets: {
      'vllm-fp8': { engine: 'vllm', model: '/models/m-fp8', launch: 'serve --model {model} --port {port}' },
    },
  }
}
