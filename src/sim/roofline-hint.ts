/**
 * What the simulator tells the gate of its box and model for the roofline (core/roofline.ts), in `/version`'s
 * `roofline`: the profile's box bandwidth and the bytes a decode step reads. A run at time scale 4 serves simulated
 * seconds four times as fast as wall-clock ones, so the box it stands for reads memory four times as fast too.
 */
import type { RooflineHint } from '../core/roofline.js'
import type { Profile } from './profile.js'

export function rooflineHint(profile: Profile, timeScale: number): { roofline: RooflineHint } | undefined {
  const r = profile.roofline
  if (!r) return undefined
  const scaled = timeScale === 1 ? '' : ` at time scale ${timeScale}`
  return {
    roofline: {
      bandwidth: r.bandwidth * timeScale,
      weights: r.modelBytes,
      ...(r.kvPerToken !== undefined && { kvPerToken: r.kvPerToken }),
      source: `sim profile ${profile.name}${scaled}`,
    },
  }
}
