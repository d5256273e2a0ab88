/**
 * The environment fingerprint of a target — driver, CUDA, engine version, container image digest, model
 * file size and mtime, the launched program — read from the host. How two fingerprints differ is the judge's
 * (compare/fingerprint-changes.ts).
 */
import { stat } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import type { Fingerprint, HostState } from '../core/host.js'
import { launchedProgram } from './launched-program.js'

export interface FingerprintInputs {
  host: HostState
  engineVersion?: string
  container?: { image: string; digest?: string }
  /** The target's `model`; a local file or directory path gives size and mtime. */
  model?: string
  /** The launch command and its environment: the program it runs is hashed (launched-program.ts). */
  launch?: { command?: string; env: Readonly<Record<string, string | undefined>> }
  cwd?: string
}

export async function fingerprint(i: FingerprintInputs): Promise<Fingerprint> {
  const f: Fingerprint = {}
  const driver = i.host.gpus?.find((g) => g.driver)?.driver
  if (driver) f.driver = driver
  if (i.host.cuda) f.cuda = i.host.cuda
  if (i.engineVersion) f.engine = i.engineVersion
  if (i.container?.image) f.image = i.container.image
  if (i.container?.digest) f.digest = i.container.digest
  const model = i.model && (await modelFile(i.model, i.cwd ?? process.cwd()))
  if (model) f.model = model
  const program = i.launch && (await launchedProgram(i.launch.command, i.launch.env, i.cwd ?? process.cwd()))
  if (program) f.program = program
  return f
}

/** A model name that looks like a path (`/models/x.gguf`, `./x`, `~` is not expanded) and exists. */
async function modelFile(model: string, cwd: string): Promise<Fingerprint['model']> {
  if (!isAbsolute(model) && !model.startsWith('./') && !model.startsWith('../')) return undefined
  const s = await stat(resolve(cwd, model)).catch(() => undefined)
  return s ? { bytes: s.size, mtime: s.mtime.toISOString() } : undefined
}
