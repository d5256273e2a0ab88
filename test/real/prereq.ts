/**
 * Where the real-engine suite finds its prerequisites, and loud failures when one is missing:
 * these tests never skip. `scripts/provision-real.sh` installs all of them.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** The offline image the provisioning script builds (host node, python3 and the llama.cpp server's libraries). */
export const ENGINE_IMAGE = process.env.LLM_BENCH_IMAGE ?? 'localhost/llm-bench-engine:test'

const PROVISION = 'run `bash scripts/provision-real.sh` as root'

/** The llama.cpp CPU build and its tiny models (target and draft share one vocabulary). */
export function llamaCpp(): { dir: string; server: string; model: string; draft: string } {
  const dir = resolve(process.env.LLM_BENCH_LLAMA_DIR ?? join(repo, '../shared/engines/llama.cpp'))
  const paths = {
    dir,
    server: join(dir, 'llama-server'),
    model: join(dir, 'tiny-llama-f16.gguf'),
    draft: join(dir, 'tiny-llama-draft-q8_0.gguf'),
  }
  for (const path of [paths.server, paths.model, paths.draft]) {
    if (!existsSync(path))
      throw new Error(`real-engine suite: ${path} is missing (set LLM_BENCH_LLAMA_DIR to the llama.cpp directory)`)
  }
  return paths
}

function tool(name: string, args: string[]): string {
  try {
    return execFileSync(name, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 }).trim()
  } catch (error) {
    throw new Error(
      `real-engine suite: \`${name} ${args.join(' ')}\` failed (${(error as Error).message.split('\n')[0]}): ${PROVISION}`,
      { cause: error },
    )
  }
}

/** podman, working, with the engine image present. */
export function podman(): { version: string; image: string } {
  const version = tool('podman', ['--version'])
  tool('podman', ['image', 'exists', ENGINE_IMAGE])
  return { version, image: ENGINE_IMAGE }
}

/** docker with its daemon answering and the engine image present. */
export function docker(): { version: string; image: string } {
  const version = tool('docker', ['version', '--format', '{{.Server.Version}}'])
  tool('docker', ['image', 'inspect', '--format', '{{.Id}}', ENGINE_IMAGE])
  return { version, image: ENGINE_IMAGE }
}

/** The Debian chromium binary. */
export function chromium(): { path: string; version: string } {
  const path = process.env.LLM_BENCH_CHROMIUM ?? '/usr/bin/chromium'
  if (!existsSync(path)) throw new Error(`real-engine suite: ${path} is missing: ${PROVISION}`)
  return { path, version: tool(path, ['--version']) }
}
