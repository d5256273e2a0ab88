/**
 * A `stop:` command that floods its output, run again by the post step (as the watchdog would run it): the
 * target's log keeps its first MiB and says how much was dropped, instead of growing without bound.
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { STOP_OUTPUT_BYTES, type CleanupTask } from '../../src/server/cleanup.js'
import { runAction } from '../helpers/action.js'

describe('the post step runs a flooding stop command', () => {
  it("bounds what it adds to the target's log and says how much it dropped", async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-stop-flood-'))
    const logPath = join(cwd, 'flood.log')
    // 64 MiB of output, then a clean exit.
    const tasks: CleanupTask[] = [
      { kind: 'stop', target: 'flood', command: 'yes | head -c 67108864', env: {}, passEnv: [], logPath },
    ]
    const post = await runAction({
      cwd,
      inputs: {},
      state: { isPost: 'true', cleanup: JSON.stringify(tasks) },
      timeoutMs: 60_000,
    })
    expect(post.code, post.stdout).toBe(0)
    expect(post.stdout).toMatch(/post: ran 1 stop command/)
    const size = (await stat(logPath)).size
    expect(size).toBeGreaterThanOrEqual(STOP_OUTPUT_BYTES)
    expect(size).toBeLessThan(STOP_OUTPUT_BYTES + 4096)
    const log = await readFile(logPath, 'utf8')
    expect(log).toMatch(/stop command exited \(code 0\); \d+ bytes of its output dropped past 1048576/)
  }, 90_000)
})
