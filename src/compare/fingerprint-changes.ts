/**
 * How a cell's environment fingerprint (host/fingerprint.ts) differs from the baseline's, so a change in speed
 * can be read next to a change of environment that may explain it, and whether a same-box A/B's base arm ran the
 * engine the base commit defines or the one the PR's workflow installed.
 */
import type { Fingerprint } from '../core/host.js'
import { formatBytes } from '../core/format.js'

const FIELDS: ReadonlyArray<[keyof Omit<Fingerprint, 'model'>, string]> = [
  ['driver', 'driver'],
  ['cuda', 'CUDA'],
  ['engine', 'engine'],
  ['image', 'image'],
  ['digest', 'image digest'],
  ['program', 'launched program'],
]

/** The fields that say which engine ran, as opposed to the box it ran on (driver, CUDA). */
const ENGINE_FIELDS: ReadonlyArray<keyof Fingerprint> = ['engine', 'image', 'digest', 'program', 'model']

const shown = (f: Fingerprint, key: keyof Fingerprint): string | undefined => {
  const v = f[key]
  return typeof v === 'object' ? `${formatBytes(v.bytes)} of ${v.mtime}` : v
}

/**
 * The engine changes since the stored baseline that the A/B's base arm did not reproduce: each engine field the
 * baseline and the PR recorded differently where some base launch recorded the PR's value or nothing (it ran the
 * engine the PR's workflow installed, not the base's). Empty when the arms differ the way the PR differs from the
 * baseline, or when nothing of the engine changed.
 */
export function unreproducedChanges(
  stored: Fingerprint | undefined,
  pr: Fingerprint | undefined,
  baseArm: readonly (Fingerprint | undefined)[],
): string[] {
  if (!stored || !pr) return []
  return ENGINE_FIELDS.flatMap((key) => {
    const [was, now] = [shown(stored, key), shown(pr, key)]
    if (was === undefined || now === undefined || was === now) return []
    const base = baseArm.map((f) => (f ? shown(f, key) : undefined))
    if (base.length && base.every((b) => b !== undefined && b !== now)) return []
    const label = key === 'model' ? 'model file' : FIELDS.find(([k]) => k === key)![1]
    const ran = base.find((b) => b === now) ? now : 'unknown'
    return [`${label} ${was} → ${now}, base arm ${ran}`]
  })
}

/** Each field both fingerprints have and that differs (`driver 580.95 → 590.10`); a field only one side recorded is not a change. */
export function fingerprintChanges(baseline: Fingerprint | undefined, current: Fingerprint): string[] {
  if (!baseline) return []
  const changes = FIELDS.flatMap(([key, label]) => {
    const was = baseline[key]
    const now = current[key]
    return was !== undefined && now !== undefined && was !== now ? [`${label} ${was} → ${now}`] : []
  })
  const a = baseline.model
  const b = current.model
  if (a && b && a.bytes !== b.bytes) changes.push(`model file ${formatBytes(a.bytes)} → ${formatBytes(b.bytes)}`)
  else if (a && b && a.mtime !== b.mtime) changes.push(`model file modified ${a.mtime} → ${b.mtime}`)
  return changes
}
