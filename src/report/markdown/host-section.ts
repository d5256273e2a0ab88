/** The host section: each target's host before launch, its environment fingerprint, what changed since the baseline, rounds measured again. */
import type { CellHost, Fingerprint, GpuProcess, GpuState, HostState } from '../../core/host.js'
import { scopeText } from '../../host/gpu-scope.js'
import type { CellResult } from '../../core/results.js'
import { formatBytes, plural } from '../../core/format.js'
import { clip, details, escapeText } from '../escape.js'

function gpuLine(g: GpuState, i: number): string {
  const clocks =
    g.smClockMhz === undefined
      ? undefined
      : `SM ${g.smClockMhz}${g.maxSmClockMhz === undefined ? '' : `/${g.maxSmClockMhz}`} MHz`
  const parts = [
    clocks,
    g.temperatureC === undefined ? undefined : `${g.temperatureC} °C`,
    g.powerW === undefined ? undefined : `${g.powerW} W`,
    g.active.length ? `slowdown: ${g.active.join(', ')}` : 'no slowdown',
  ]
  return `GPU ${i} ${g.name ?? ''}: ${parts.filter(Boolean).join(', ')}`
}

/** `pid 4242 python on GPU 0 (not this target’s GPU)`: the GPU only on a box of several. */
function processText(q: GpuProcess, several: boolean): string {
  const on = several && q.gpu !== undefined ? ` on GPU ${q.gpu}` : ''
  const mark = q.ours ? ' (ours)' : q.allowed ? ' (allowed)' : q.outside ? ' (not this target’s GPU)' : ''
  return `pid ${q.pid} ${q.name}${on}${mark}`
}

export function preflightText(p: HostState): string {
  const memory =
    p.memory && `memory ${formatBytes(p.memory.availableBytes)} available of ${formatBytes(p.memory.totalBytes)}`
  const several = (p.gpus?.length ?? 0) > 1
  const processes = p.processes?.length
    ? `GPU processes: ${p.processes.map((q) => processText(q, several)).join(', ')}`
    : p.processes && 'no other GPU process'
  const governors = p.governors ? `CPU governor ${p.governors.join('/')}` : 'no CPU governor (no cpufreq)'
  return [...(p.gpus?.map(gpuLine) ?? [p.noGpu]), processes, memory, governors].filter(Boolean).join('; ')
}

export function fingerprintText(f: Fingerprint): string {
  const parts = [
    f.driver && `driver ${f.driver}`,
    f.cuda && `CUDA ${f.cuda}`,
    f.engine && `engine ${f.engine}`,
    f.image && `image ${f.image}${f.digest ? `@${f.digest}` : ''}`,
    f.model && `model file ${formatBytes(f.model.bytes)}, modified ${f.model.mtime}`,
  ]
  return parts.filter(Boolean).join(' · ') || 'nothing recorded'
}

function hostLines(id: string, h: CellHost): string {
  const lines = [
    `- **${escapeText(id)}**: ${escapeText(clip(preflightText(h.preflight), 600))}`,
    `  - environment: ${escapeText(clip(fingerprintText(h.fingerprint), 400))}`,
  ]
  if (h.counted) lines.splice(1, 0, `  - GPUs counted: ${escapeText(clip(scopeText(h.counted), 400))}`)
  if (h.changes?.length) lines.push(`  - changed since the baseline: ${escapeText(clip(h.changes.join('; '), 400))}`)
  for (const r of h.remeasured ?? [])
    lines.push(`  - round ${r.round + 1} measured again: ${escapeText(clip(r.reason, 200))}`)
  return lines.join('\n')
}

/** One entry per target (its first cell), and one more for each other cell that re-measured rounds. */
export function hostSection(cells: readonly CellResult[]): string | undefined {
  const seen = new Set<string>()
  const lines = cells.flatMap((c) => {
    if (!c.host) return []
    const first = !seen.has(c.target)
    seen.add(c.target)
    if (first) return [hostLines(c.target, c.host)]
    return (c.host.remeasured ?? []).map(
      (r) => `- **${escapeText(c.id)}**: round ${r.round + 1} measured again: ${escapeText(clip(r.reason, 200))}`,
    )
  })
  return lines.length ? details(`Host (${plural(seen.size, 'target')})`, lines.join('\n')) : undefined
}

/** What changed in the environment since the baseline, to read next to a change in speed. */
export function environmentNote(cell: CellResult): string | undefined {
  const changes = cell.host?.changes
  return changes?.length ? `environment changed: ${changes.join('; ')}` : undefined
}
