/**
 * A cancelled job, as the Actions runner cancels one: SIGINT, then SIGTERM. The action handles them as
 * the CLI does (src/run/signals.ts): the first signal tears the targets down with SIGTERM and the
 * grace; the second does not wait for the grace and kills every launched group with SIGKILL at once.
 * The engine here ignores SIGTERM (llama-server does while a stream is in flight), so only the
 * second signal can end it before the grace runs out.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { stubbornMatrix } from '../engines/fake.js'
import { onceStdout, runAction } from '../helpers/action.js'

describe('the action on a second signal', () => {
  it('SIGINT then SIGTERM: the SIGTERM-ignoring engine is killed at once, not after the grace', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-action-signals-'))
    await writeFile(join(cwd, 'bench.yml'), stubbornMatrix())
    const run = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'results-dir': 'out' },
      timeoutMs: 60_000,
      onSpawn: (child) =>
        onceStdout(child, /stubborn\/long: round 1\/1|ready at/, () => {
          setTimeout(() => child.kill('SIGINT'), 500)
          setTimeout(() => child.kill('SIGTERM'), 800)
        }),
    })
    expect(run.stdout).toContain('received SIGINT')
    expect(run.stdout).toMatch(/received SIGTERM again: killing 1 launched process group\(s\) with SIGKILL/)
    // The grace path would say so: the group was gone before the grace ran out.
    expect(run.stdout).not.toMatch(/did not exit within .* of SIGTERM/)
    expect(run.code, run.stdout).toBe(1)
    expect(run.stdout).toMatch(/cancelled by SIGINT/)
  }, 90_000)
})
