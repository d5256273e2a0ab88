/**
 * A drafting cell decided by the same-box A/B through the CLI: `npx tsx bench/spec-ab.ts [--runs N] [--prompts
 * text|code|math] [--time-scale X] [--only identical|acceptance|step]` (run `npm run bundle` first: it runs
 * `dist/cli`).
 *
 * A temporary git repository holds a matrix of one simulated drafting target (vllm-qwen38-27b-nvfp4-mtp3, MTP k = 3,
 * `acceptance: prompt`, launch-cv 3 %) and one scenario (256 prompt tokens of `--prompts`, 64 output tokens,
 * concurrency 1, 4 requests a round, rounds 3, discard 1), gated at decode 5 % with `ab: always`. Its head commit
 * is, in turn: the base unchanged; the drafter accepting 10 % less (`accept-factor: 0.9`); the verify step 10 %
 * slower (time-scale × 0.9: decode −10 %). For each, `--runs` runs of `llm-bench-gate run --mode compare --base
 * HEAD~1`, each launch drawing its own speed, and the shares of the verdicts on the cell, its acceptance factor,
 * and the mean launches per arm are printed.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { ResultsFile } from '../src/core/results.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    prompts: { type: 'string', default: 'text' },
    'time-scale': { type: 'string', default: '10' },
    only: { type: 'string' },
  },
})
const RUNS = Number(values.runs)
const TIME_SCALE = Number(values['time-scale'])
const CLI = resolve('dist/cli/index.js')

function matrix(o: { acceptFactor?: number; timeScale: number }): string {
  return [
    'version: 1',
    'hardware: box',
    'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 30s, request-timeout: 60s, quality: false, ab: always }',
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    `  chat: { input-tokens: 256, output-tokens: 64, concurrency: 1, requests: 4, prompts: ${values.prompts} }`,
    'targets:',
    '  mtp:',
    '    engine: sim',
    '    profile: vllm-qwen38-27b-nvfp4-mtp3',
    `    time-scale: ${o.timeScale}`,
    '    launch-cv: 3%',
    '    acceptance: prompt',
    o.acceptFactor === undefined ? '' : `    accept-factor: ${o.acceptFactor}`,
    '',
  ].join('\n')
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', ...args], { cwd })

interface Case {
  name: string
  head: { acceptFactor?: number; timeScale: number }
}

const cases: Case[] = [
  { name: 'identical', head: { timeScale: TIME_SCALE } },
  { name: 'acceptance −10 %', head: { acceptFactor: 0.9, timeScale: TIME_SCALE } },
  { name: 'step time +11.1 % (decode −10 %)', head: { timeScale: TIME_SCALE * 0.9 } },
].filter((c) => !values.only || c.name.startsWith(values.only))
if (!cases.length) throw new Error(`--only ${values.only}: no case starts so (identical, acceptance, step)`)

const pct = (n: number) => `${((100 * n) / RUNS).toFixed(0)}%`.padStart(6)
console.log(`drafting cell, ${values.prompts} prompts, ${RUNS} runs a case through the CLI with --base`)
console.log(
  `${'case'.padEnd(34)}${'regr'.padStart(6)}${'incon'.padStart(6)}${'pass'.padStart(6)}  acceptance factor        launches/arm`,
)
for (const c of cases) {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-spec-ab-'))
  try {
    git(dir, 'init', '-q')
    writeFileSync(join(dir, 'bench.yml'), matrix({ timeScale: TIME_SCALE }))
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'base')
    writeFileSync(join(dir, 'bench.yml'), matrix(c.head))
    git(dir, 'commit', '-qam', 'head', '--allow-empty')
    const counts = { regression: 0, inconclusive: 0, pass: 0 }
    const factor: string[] = []
    let launches = 0
    for (let i = 0; i < RUNS; i++) {
      const out = join(dir, `out-${i}`)
      const args = [CLI, 'run', '--config', 'bench.yml', '--out', out, '--mode', 'compare', '--base', 'HEAD~1']
      spawnSync(process.execPath, args, { cwd: dir, stdio: 'ignore' })
      const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile
      const cell = results.cells[0]
      const status = cell.verdict.status as keyof typeof counts
      if (status in counts) counts[status]++
      const accept = cell.verdict.metrics.decode?.factors?.find((f) => f.metric === 'accept-length')
      factor.push(accept ? `${accept.status[0]}${((accept.delta ?? 0) * 100).toFixed(1)}` : '—')
      launches += cell.ab?.launches ?? 0
    }
    const f = [...new Set(factor)].slice(0, 4).join(' ')
    console.log(
      `${c.name.padEnd(34)}${pct(counts.regression)}${pct(counts.inconclusive)}${pct(counts.pass)}  ${f.padEnd(24)} ${(launches / RUNS).toFixed(2)}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
