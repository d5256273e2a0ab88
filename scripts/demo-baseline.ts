/**
 * Regenerates fixtures/demo-baseline.json (run: npm run bundle && npm run demo:baseline).
 *
 * The demo's matrix, fixtures/demo.yml, is run healthy (every sim `fault:` set to `none`) with its own rounds,
 * through the bundled CLI in `run` mode, as a default-branch run of it would be. Its rounds send the same prompts as
 * the demo's (bench/prompts/indices.ts), so the demo's rounds pair with them one for one and the round-to-round noise
 * is taken from the pairs (compare/noise.ts): a longer baseline run would average other prompts too, and a drafting
 * cell's mean over other text is another figure, not a noisier one. The launch-to-launch part stays the assumed
 * noise floor, as it does for any baseline file. The run's identity is fixed (a default-branch push of a
 * placeholder commit) and the checkout's path is taken out of the launch commands, so the file does not depend on
 * where or when it was made.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseDocument } from 'yaml'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CONFIG = 'fixtures/demo.yml'
const BASELINE = 'fixtures/demo-baseline.json'
const SHA = '0000000000000000000000000000000000demo'

/** The demo's matrix with every fault switched off. */
export function healthyConfig(text: string): string {
  const doc = parseDocument(text)
  const targets = doc.get('targets', true) as { items: { key: { value: string } }[] }
  for (const { key } of targets.items)
    if (doc.hasIn(['targets', key.value, 'fault'])) doc.setIn(['targets', key.value, 'fault'], 'none')
  return doc.toString()
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-demo-baseline-'))
  try {
    const config = join(dir, 'demo.yml')
    writeFileSync(config, healthyConfig(readFileSync(join(ROOT, CONFIG), 'utf8')))
    const out = join(dir, 'out')
    const cli = join(ROOT, 'dist', 'cli', 'index.js')
    execFileSync(process.execPath, [cli, 'run', '--config', config, '--mode', 'run', '--out', out], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const text = readFileSync(join(out, 'results.json'), 'utf8').replaceAll(ROOT.endsWith(sep) ? ROOT : ROOT + sep, '')
    const results = JSON.parse(text)
    results.run = { ...results.run, sha: SHA, ref: 'refs/heads/main', event: 'push', runUrl: '', config: CONFIG }
    writeFileSync(join(ROOT, BASELINE), JSON.stringify(results, null, 2) + '\n')
    console.log(`wrote ${BASELINE}: ${results.cells.length} cells`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
