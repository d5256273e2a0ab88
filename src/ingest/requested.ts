/**
 * Runs → cells keyed by what each run was asked for, never by what it achieved: a run whose outputs came out a
 * token short on average is still the workload its baseline measured (lengths.ts says whether it measured it),
 * and an id built from achieved means would make it a new cell and the baseline's cell missing, so nothing would
 * be compared. The requested lengths come from the file (each format cites what its tool records) or from
 * `--input-tokens`/`--output-tokens`; `--scenario` names the cell in place of the id built from the request. A
 * file that records no requested length, with no option saying it, is refused.
 */
import { ConfigError } from '../core/errors.js'
import { ID_PATTERN } from '../core/fields.js'
import { scenarioId } from './serving.js'
import type { IngestFormat, IngestedRun, ToolRun } from './types.js'

export interface RequestOptions {
  /** One scenario id for every run of the files (`--scenario`). */
  scenario?: string
  /** The requested lengths (`--input-tokens`, `--output-tokens`), for files that do not record them. */
  inputTokens?: number
  outputTokens?: number
}

const OPTION = { inputTokens: '--input-tokens', outputTokens: '--output-tokens' } as const
const WORD = { inputTokens: 'input', outputTokens: 'output' } as const
type Length = keyof typeof OPTION

interface Resolved {
  tokens: number
  /** From the request (the file or an option), not the achieved mean --scenario falls back to. */
  requested: boolean
  /** Held against the achieved lengths; a spread or a length nobody requested is not. */
  checked: boolean
  note?: string
}

function resolveLength(run: ToolRun, which: Length, options: RequestOptions): Resolved | undefined {
  const option = options[which]
  const recorded = run.requested[which]
  if (option !== undefined && recorded !== undefined && option !== recorded)
    throw new ConfigError([
      `${OPTION[which]} ${option}: ${run.where} records ${recorded} ${WORD[which]} tokens requested`,
    ])
  const what = which === 'inputTokens' ? 'prompt' : 'output'
  const tokens = option ?? recorded
  const spread = run.requested.spread?.[WORD[which]]
  if (tokens !== undefined && !spread) return { tokens, requested: true, checked: true }
  if (tokens !== undefined)
    return {
      tokens,
      requested: true,
      checked: false,
      note: `achieved lengths: ${what} not checked, a spread (${spread})`,
    }
  if (options.scenario === undefined) return undefined
  const mean = which === 'inputTokens' ? run.means.promptTokens : run.means.outputTokens
  return {
    tokens: Math.round(mean),
    requested: false,
    checked: false,
    note: `achieved lengths: ${what} not checked, none requested (the workload's is the achieved mean)`,
  }
}

function missing(format: IngestFormat, run: ToolRun, lengths: readonly Length[]): string {
  const which = lengths.map((l) => WORD[l]).join(' and ')
  const pass = lengths.map((l) => `${OPTION[l]} N`).join(' ')
  const hint = format.lengthsHint ? `, ${format.lengthsHint}` : ''
  return `${run.where}: ${format.noun} does not record the requested ${which} length${lengths.length > 1 ? 's' : ''}; pass ${pass} (or --scenario ID)${hint}`
}

function ownId(run: ToolRun, input: Resolved, output: Resolved): string {
  const { requested } = run
  if (requested.name) return requested.name
  const id = scenarioId({ ...requested, inputTokens: input.tokens, outputTokens: output.tokens })
  return requested.variant ? `${id}-${requested.variant}` : id
}

function place(run: ToolRun, input: Resolved, output: Resolved, options: RequestOptions): IngestedRun {
  const { requested } = run
  const unrequested = (
    [
      ['inputTokens', input],
      ['outputTokens', output],
    ] as const
  ).flatMap(([key, r]) => (r.requested ? [] : [key]))
  return {
    ...run,
    scenario: options.scenario ?? ownId(run, input, output),
    workload: {
      inputTokens: input.tokens,
      outputTokens: output.tokens,
      concurrency: requested.concurrency ?? Math.round(run.means.concurrency ?? 1),
      requests: requested.requests,
      rate: requested.rate,
      ...(unrequested.length && { unrequested }),
    },
    check: {
      ...(input.checked ? { inputTokens: input.tokens } : {}),
      ...(output.checked ? { outputTokens: output.tokens } : {}),
    },
    unmapped: [...run.unmapped, ...[input.note, output.note].filter((n) => n !== undefined)],
  }
}

function checkOptions(format: IngestFormat, options: RequestOptions): void {
  const given = [
    options.scenario === undefined ? undefined : '--scenario',
    options.inputTokens === undefined ? undefined : OPTION.inputTokens,
    options.outputTokens === undefined ? undefined : OPTION.outputTokens,
  ].filter((o) => o !== undefined)
  if (given.length && !format.lengthsHint)
    throw new ConfigError([
      `${given.join(', ')}: not taken with --format ${format.name}: each record (${format.noun}) names its whole request, and its scenario after it`,
    ])
  if (options.scenario !== undefined && !ID_PATTERN.test(options.scenario))
    throw new ConfigError([
      `--scenario ${JSON.stringify(options.scenario)}: expected an id like chat (letters, digits, ., _ and -)`,
    ])
}

interface Asked {
  run: ToolRun
  /** The id the request would have had, for the message. */
  id: string
  /** What was requested, lengths nobody requested left out: runs that differ only in those are one workload. */
  key: string
}

function asked(run: ToolRun, input: Resolved, output: Resolved): Asked {
  const { concurrency, rate, variant, name } = run.requested
  const length = (r: Resolved) => (r.requested ? r.tokens : null)
  const key = JSON.stringify([length(input), length(output), concurrency, rate, variant, name])
  return { run, id: ownId(run, input, output), key }
}

/** With --scenario, the runs of one target must have been asked for one workload: they become rounds of one cell. */
function oneWorkload(scenario: string, runs: readonly Asked[]): void {
  const first = new Map<string, Asked>()
  for (const entry of runs) {
    const seen = first.get(entry.run.target)
    if (!seen) first.set(entry.run.target, entry)
    else if (seen.key !== entry.key)
      throw new ConfigError([
        `--scenario ${scenario}: ${seen.run.where} (${seen.id}) and ${entry.run.where} (${entry.id}) were asked for different workloads; ingest them apart`,
      ])
  }
}

/** Each run in its cell, keyed by its requested workload; refuses files that do not say what was requested. */
export function placeRuns(format: IngestFormat, runs: readonly ToolRun[], options: RequestOptions = {}): IngestedRun[] {
  checkOptions(format, options)
  const problems: string[] = []
  const refused = new Set<string>()
  const placed: IngestedRun[] = []
  const ids: Asked[] = []
  for (const run of runs) {
    const input = resolveLength(run, 'inputTokens', options)
    const output = resolveLength(run, 'outputTokens', options)
    if (!input || !output) {
      // One message per file: an --append-result file of 20k runs that lacks them is one problem.
      if (!refused.has(run.file))
        problems.push(
          missing(format, run, input ? ['outputTokens'] : output ? ['inputTokens'] : ['inputTokens', 'outputTokens']),
        )
      refused.add(run.file)
      continue
    }
    if (options.scenario !== undefined) ids.push(asked(run, input, output))
    placed.push(place(run, input, output, options))
  }
  if (problems.length) throw new ConfigError(problems)
  if (options.scenario !== undefined) oneWorkload(options.scenario, ids)
  return placed
}
