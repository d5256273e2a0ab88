/**
 * The action runs from a bundle, with any working directory and no fixtures/ beside it: the
 * shipped profiles must travel inside the bundle. Bundles the simulator with the project's
 * bundler (transpile only; tsc type-checks) and drives it from an unrelated directory.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { SHIPPED_PROFILE_NAMES } from '../../src/sim/index.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sim-bundle-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('the bundled simulator carries every shipped profile and serves from any cwd', async () => {
  const ncc = createRequire(import.meta.url).resolve('@vercel/ncc/dist/ncc/cli.js')
  await run(
    process.execPath,
    [ncc, 'build', join(root, 'src/sim/index.ts'), '-o', join(dir, 'bundle'), '-q', '--transpile-only'],
    { cwd: root, timeout: 60_000 },
  )
  const elsewhere = mkdtempSync(join(dir, 'cwd-'))
  writeFileSync(
    join(elsewhere, 'probe.mjs'),
    `const sim = await import(${JSON.stringify(join(dir, 'bundle', 'index.js'))})
const names = sim.SHIPPED_PROFILE_NAMES.filter((n) => sim.loadProfile(n).name === n)
const server = await sim.startSimServer({ profile: names[0], port: 0, timeScale: 50 })
try {
  const res = await fetch('http://127.0.0.1:' + server.port + '/v1/completions', { method: 'POST', body: JSON.stringify({ prompt: 'a b c', max_tokens: 2 }) })
  console.log(JSON.stringify({ names, usage: (await res.json()).usage }))
} finally {
  await server.close()
}
`,
  )
  const { stdout } = await run(process.execPath, ['probe.mjs'], { cwd: elsewhere, timeout: 30_000 })
  const out = JSON.parse(stdout)
  expect(out.names).toEqual(SHIPPED_PROFILE_NAMES)
  expect(out.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 })
}, 90_000)
