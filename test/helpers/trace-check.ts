/**
 * The checks a trace viewer makes of a Chrome Trace Event Format file before drawing it (Google's "Trace Event
 * Format" document: the JSON Array form or an object with `traceEvents`; a complete event `ph: "X"` has numeric
 * `ts` and `dur` ≥ 0 in µs, `pid` and `tid`, and a `name`; `M` metadata events name processes and threads), and
 * what the per-request record promises on top: no two spans of one track overlap.
 */
export interface TraceEventShape {
  ph: string
  name: string
  pid: number
  tid: number
  ts?: number
  dur?: number
  args?: Record<string, unknown>
}

export interface CheckedTrace {
  events: TraceEventShape[]
  /** Every way the file fails the format; empty when it loads. */
  problems: string[]
  /** Per process id, the thread ids that carry complete events. */
  tracks: Map<number, Set<number>>
  /** Spans that start before the previous span of their track ended. */
  overlaps: string[]
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function problemsOf(e: Record<string, unknown>, i: number): string[] {
  const problems: string[] = []
  if (typeof e.ph !== 'string') problems.push(`event ${i}: no ph`)
  if (typeof e.name !== 'string') problems.push(`event ${i}: no name`)
  for (const key of ['pid', 'tid']) if (!isNumber(e[key])) problems.push(`event ${i}: ${key} is not a number`)
  if (e.ph === 'X') {
    if (!isNumber(e.ts)) problems.push(`event ${i}: ts is not a number`)
    if (!isNumber(e.dur) || e.dur < 0) problems.push(`event ${i}: dur is not a number ≥ 0`)
  }
  if (
    e.ph === 'M' &&
    typeof (e.args as Record<string, unknown> | undefined)?.name !== 'string' &&
    !String(e.name).endsWith('sort_index')
  )
    problems.push(`event ${i}: metadata without args.name`)
  return problems
}

function overlapsOf(spans: TraceEventShape[]): string[] {
  const byTrack = new Map<string, TraceEventShape[]>()
  for (const e of spans) {
    const key = `${e.pid}/${e.tid}`
    byTrack.set(key, [...(byTrack.get(key) ?? []), e])
  }
  const found: string[] = []
  for (const [track, list] of byTrack) {
    const sorted = [...list].sort((a, b) => a.ts! - b.ts!)
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i].ts! < sorted[i - 1].ts! + sorted[i - 1].dur!) found.push(`${track} at ${sorted[i].ts} µs`)
  }
  return found
}

/** Parses and checks a trace file's text. */
export function checkTrace(text: string): CheckedTrace {
  const doc: unknown = JSON.parse(text)
  const list = Array.isArray(doc) ? doc : (doc as { traceEvents?: unknown })?.traceEvents
  if (!Array.isArray(list))
    return { events: [], problems: ['neither an array nor {traceEvents: [...]}'], tracks: new Map(), overlaps: [] }
  const problems = list.flatMap((e, i) =>
    e !== null && typeof e === 'object' ? problemsOf(e as Record<string, unknown>, i) : [`event ${i}: not an object`],
  )
  const events = list as TraceEventShape[]
  const spans = events.filter((e) => e.ph === 'X')
  const tracks = new Map<number, Set<number>>()
  for (const e of spans) tracks.set(e.pid, (tracks.get(e.pid) ?? new Set()).add(e.tid))
  return { events, problems, tracks, overlaps: overlapsOf(spans) }
}
