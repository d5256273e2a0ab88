/** The `llm-bench-gate` CLI: the same pipeline as the action, without @actions/*. */
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { assembleResults } from '../run/assemble.js'
import { loadPlan } from '../config/index.js'
import { formatPlan } from '../config/plan-text.js'
import { modelFileWarnings } from '../config/model-files.js'
import { DEFAULTS, MODES, type ActionOptions, type Mode } from '../config/inputs.js'
import type { RunContext } from '../run/context.js'
import { cellJudge, formatAbPlan, runFailure, type RunCells } from '../compare/index.js'
import type { Plan, TargetPlan } from '../core/plan.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import { consoleLogger, printable } from '../core/log.js'
import { secrets } from '../core/redact.js'
import { runPipeline } from '../run/pipeline.js'
import { cancelOnSignals } from '../run/signals.js'
import { SUMMARY_LIMIT, renderReport } from '../report/index.js'
import { simMain } from '../sim/index.js'
import { readResultsFile } from '../store/index.js'
import { VERSION } from '../core/version.js'
import { INGEST_HELP, ingestMain } from './ingest-command.js'

const HELP: Record<string, string> = {
  '': `llm-bench-gate ${VERSION}: benchmark LLM inference engines and gate on regressions.

Usage: llm-bench-gate <command> [options]

Commands:
  validate   check a matrix file and print the expanded plan
  run        launch, measure, compare and report, as the action does
  compare    compare two results files and print the report
  ingest     turn other benchmark tools' result files into a results file
  sim        run the built-in engine simulator

Run 'llm-bench-gate <command> --help' for a command's options.`,
  validate: `Usage: llm-bench-gate validate [--config FILE] [--only GLOBS] [--shard i/n]

Validates the matrix file and prints the plan: targets, launch commands with placeholders
filled ({port} is picked at launch), and cells. Exits 2 on a bad file, listing every problem.
Warns of each local model file the targets name that this machine lacks (a run here fails
those targets before launching them; the runner may have the files).`,
  run: `Usage: llm-bench-gate run [--config FILE] [--only GLOBS] [--out DIR] [--shard i/n]
                          [--baseline-file FILE] [--base REV] [--mode MODE] [--hardware KEY] [--dry-run]
                          [--no-fail-on-regression]

Launches every target, measures its cells, compares with --baseline-file when given, and
writes DIR/results.json, DIR/report.md, DIR/comment.md (the PR comment's compact form) and
DIR/logs/. Prints the report. Exits 1 when the gate fails (a confirmed regression or a cell
that could not be measured), 2 on a bad config.
  --no-fail-on-regression  report a confirmed regression but exit 0 for it (the action's
           fail-on-regression: false); a cell that could not be measured still exits 1
  --mode   ${MODES.join(' | ')} (default: compare with --baseline-file, else run)
  --base   a commit to A/B-test against on this machine, as a PR's base (the matrix file's ab setting)`,
  compare: `Usage: llm-bench-gate compare BASELINE CURRENT [--config FILE]

Judges the cells of the CURRENT results file against the BASELINE results file with the gate
of --config (default thresholds without it), prints the report, exits 1 on a regression.`,
  ingest: INGEST_HELP,
}

const git = (args: string[]) => {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return ''
  }
}

function localContext(): RunContext {
  const branch = git(['symbolic-ref', '-q', 'HEAD'])
  return { event: 'local', sha: git(['rev-parse', 'HEAD']), ref: branch, runUrl: '' }
}

/** `--base REV`: the commit a same-box A/B measures as the base arm, as a pull request's base would be. */
function baseCommit(rev: string | undefined): string | undefined {
  if (rev === undefined) return undefined
  const sha = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])
  if (!sha) throw new ConfigError([`--base: "${rev}" does not name a commit of this checkout`])
  return sha
}

const parseOptions = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: {
      config: { type: 'string', default: DEFAULTS.config },
      only: { type: 'string', default: '' },
      out: { type: 'string', default: DEFAULTS.resultsDir },
      shard: { type: 'string', default: '' },
      mode: { type: 'string' },
      hardware: { type: 'string', default: '' },
      'baseline-file': { type: 'string', default: '' },
      base: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'no-fail-on-regression': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })

export async function main(argv: string[]): Promise<number> {
  const [command = '', ...rest] = argv
  if (command === 'sim') return simMain(rest)
  if (command === 'ingest') return ingestMain(rest, localContext)
  secrets.addFromEnv(process.env)
  if (!(command in HELP) || command === '' || command === '--help' || command === '-h') {
    process.stdout.write(HELP[''] + '\n')
    return command === '' || command === '--help' || command === '-h' ? 0 : 2
  }
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(rest)
  } catch (error) {
    // A mistyped option is a usage error like a bad config, not a crash.
    process.stderr.write(
      `error: ${printable(errorMessage(error))}\nRun 'llm-bench-gate ${command} --help' for its options.\n`,
    )
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    process.stdout.write(HELP[command] + '\n')
    return 0
  }
  // Only compare takes file arguments: a stray word elsewhere is a mistyped option, not something to ignore.
  if (command !== 'compare' && positionals.length) {
    process.stderr.write(
      `error: ${command} takes no arguments, got ${printable(positionals.map((p) => JSON.stringify(p)).join(' '))}\nRun 'llm-bench-gate ${command} --help' for its options.\n`,
    )
    return 2
  }
  try {
    if (command === 'validate') {
      const plan = await loadPlan(values.config, { only: values.only, shard: values.shard || undefined })
      process.stdout.write(printable(formatPlan(plan) + formatAbPlanning(plan)) + '\n')
      for (const line of modelFileWarnings(plan.targets)) process.stderr.write(`warning: ${printable(line)}\n`)
      return 0
    }
    if (command === 'compare') return await compareFiles(positionals, values.config)
    return await runCommand(values)
  } catch (error) {
    process.stderr.write(`error: ${printable(errorMessage(error))}\n`)
    return error instanceof ConfigError ? 2 : 1
  }
}

/** `run`: the action's pipeline with a console logger, Ctrl-C handled as the runner's cancel is. */
async function runCommand(values: ReturnType<typeof parseOptions>['values']): Promise<number> {
  const mode = (values.mode ?? (values['baseline-file'] ? 'compare' : 'run')) as Mode
  if (!MODES.includes(mode)) throw new ConfigError([`--mode: "${mode}" is not one of ${MODES.join(', ')}`])
  const options: ActionOptions = {
    ...DEFAULTS,
    config: values.config,
    only: values.only,
    resultsDir: values.out,
    shard: values.shard,
    mode,
    hardware: values.hardware,
    baselineFile: values['baseline-file'],
    dryRun: values['dry-run'],
    failOnRegression: !values['no-fail-on-regression'],
  }
  const log = consoleLogger()
  const cancel = cancelOnSignals(log)
  try {
    const result = await runPipeline({
      options,
      context: { ...localContext(), baseSha: baseCommit(values.base) },
      log,
      toolVersion: VERSION,
      signal: cancel.signal,
      onSpawn: cancel.onSpawn,
    })
    process.stdout.write(printable(result.summary) + '\n')
    const files = result.resultsFile ? `results: ${result.resultsFile}\nreport:  ${result.reportFile}\n` : ''
    process.stderr.write(
      printable(`${files}${result.commentFile ? `comment: ${result.commentFile}\n` : ''}verdict: ${result.verdict}\n`),
    )
    if (result.failure) process.stderr.write(`failed: ${printable(result.failure)}\n`)
    else if (result.verdict === 'regression' && !options.failOnRegression)
      process.stderr.write('exit code 0 despite the regression: --no-fail-on-regression reports it without failing\n')
    return cancel.exitCode() ?? (result.configError ? 2 : result.failure ? 1 : 0)
  } finally {
    cancel.dispose()
  }
}

async function compareFiles(positionals: string[], config: string): Promise<number> {
  if (positionals.length !== 2) throw new ConfigError(['compare: expected two results files: BASELINE CURRENT'])
  const [baselinePath, currentPath] = positionals
  const [baseline, current] = await Promise.all([
    readResultsFile(baselinePath, 'baseline'),
    readResultsFile(currentPath, 'current'),
  ])
  const targets = await configTargets(config)
  const view = { results: baseline, history: [] }
  // The current file is the whole run: a baseline cell it lacks is missing, and a new cell may be its rename.
  const run: RunCells = { cells: current.cells, selected: () => true }
  const judge = cellJudge(view, targets, run)
  const { results, tally } = assembleResults({
    run: current.run,
    cells: current.cells.map((cell) => judge.decide({ read: cell })),
    missing: { view, selected: run.selected, renames: judge.renames },
    baseline: { sha: baseline.run.sha, hardware: baseline.run.hardware, source: baselinePath },
  })
  process.stdout.write(
    printable(
      renderReport(
        secrets.redactDeep(results),
        { configPath: config, mode: 'compare', workspace: process.cwd() },
        SUMMARY_LIMIT,
      ),
    ) + '\n',
  )
  // The action's rule, with its defaults: a regression or a cell that could not be measured fails.
  const failure = runFailure(tally, results.cells, { failOnRegression: true, failOnError: true })
  if (failure) process.stderr.write(`failed: ${printable(failure)}\n`)
  return failure ? 1 : 0
}

/**
 * The matrix file's targets, whose gates and noise floors judge the cells. A path named with --config must load;
 * the default path may be absent or unusable, and then every cell gets the built-in gate (compare/cell-judge.ts).
 */
async function configTargets(config: string): Promise<TargetPlan[]> {
  try {
    return (await loadPlan(config)).targets
  } catch (error) {
    if (config !== DEFAULTS.config) throw error
    return []
  }
}

/** The same-box A/B's expected launches per target (compare/ab-plan.ts), after the plan. */
function formatAbPlanning(plan: Plan): string {
  const targets = plan.targets.map((t) => ({ id: t.id, lines: formatAbPlan(t) })).filter((t) => t.lines.length)
  if (!targets.length) return ''
  const head =
    "\nSame-box A/B planning (each cell of a target alike; seeded, at the noise floor, rounds' own noise left out)"
  return [head, ...targets.flatMap((t) => ['', t.id, ...t.lines])].join('\n') + '\n'
}
