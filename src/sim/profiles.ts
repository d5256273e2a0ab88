/**
 * Shipped profiles, imported statically so the bundle carries them: a sim target works from
 * any cwd with nothing but the action checkout. A profile not shipped is read from a path.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import llamacppQ4km from '../../profiles/llamacpp-qwen38-27b-q4km.json' with { type: 'json' }
import llamacppQ4kmMtp5 from '../../profiles/llamacpp-qwen38-27b-q4km-mtp5.json' with { type: 'json' }
import sglangNvfp4Nextn from '../../profiles/sglang-qwen38-27b-nvfp4-nextn.json' with { type: 'json' }
import vllm08b from '../../profiles/vllm-qwen35-08b.json' with { type: 'json' }
import vllm27bBf16 from '../../profiles/vllm-qwen36-27b-bf16.json' with { type: 'json' }
import vllm27bFp8 from '../../profiles/vllm-qwen36-27b-fp8.json' with { type: 'json' }
import vllm35bNvfp4 from '../../profiles/vllm-qwen36-35b-a3b-nvfp4.json' with { type: 'json' }
import vllmNvfp4 from '../../profiles/vllm-qwen38-27b-nvfp4.json' with { type: 'json' }
import vllmNvfp4Mtp3 from '../../profiles/vllm-qwen38-27b-nvfp4-mtp3.json' with { type: 'json' }
import { parseProfile, type Profile } from './profile.js'

const SHIPPED: readonly unknown[] = [
  vllm27bFp8,
  vllm27bBf16,
  vllm35bNvfp4,
  vllm08b,
  vllmNvfp4,
  vllmNvfp4Mtp3,
  sglangNvfp4Nextn,
  llamacppQ4km,
  llamacppQ4kmMtp5,
]

/** Raw JSON of every shipped profile by name (for docs and tests). */
export const SHIPPED_PROFILES: ReadonlyMap<string, unknown> = new Map(
  SHIPPED.map((json) => [(json as { name: string }).name, json]),
)

export const SHIPPED_PROFILE_NAMES: readonly string[] = [...SHIPPED_PROFILES.keys()]

/** A profile reference that names a file rather than a shipped profile. */
export function isProfilePath(ref: string): boolean {
  return !SHIPPED_PROFILES.has(ref) && looksLikePath(ref)
}

function looksLikePath(ref: string): boolean {
  return ref.endsWith('.json') || ref.includes('/') || ref.includes('\\')
}

/** A shipped profile by name, or a profile JSON file by path (relative to `cwd`). */
export function loadProfile(ref: string, cwd = process.cwd()): Profile {
  const shipped = SHIPPED_PROFILES.get(ref)
  if (shipped) return parseProfile(shipped, ref)
  if (!looksLikePath(ref))
    throw new Error(
      `unknown sim profile "${ref}" (shipped: ${SHIPPED_PROFILE_NAMES.join(', ')}; or give a path to a profile .json file)`,
    )
  const path = resolve(cwd, ref)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(
      `sim profile ${ref}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`sim profile ${ref}: not valid JSON: ${(error as Error).message}`, { cause: error })
  }
  return parseProfile(json, ref)
}
