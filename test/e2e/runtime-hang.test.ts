/**
 * A container runtime CLI that ignores SIGTERM and never answers, in the bundled post step's cleanup: the
 * call gets SIGTERM at its 30 s timeout and SIGKILL 2 s later, so the step ends instead of waiting forever.
 */
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CleanupTask } from '../../src/server/cleanup.js'
import { runAction } from '../helpers/action.js'

describe('a runtime CLI that ignores SIGTERM', () => {
  it('is killed at the timeout: the post step ends within the bound, and the CLI is gone', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-runtime-hang-'))
    const bin = join(cwd, 'bin')
    await mkdir(bin)
    // `docker ps …` that records its pid, ignores SIGTERM and sleeps in the foreground.
    await writeFile(
      join(bin, 'docker'),
      `#!/usr/bin/env bash\necho $$ >> "${cwd}/pids"\ntrap '' TERM\nwhile true; do sleep 1; done\n`,
    )
    await chmod(join(bin, 'docker'), 0o755)
    const tasks: CleanupTask[] = [{ kind: 'containers', runtime: 'docker', runId: 'hung' }]
    const started = Date.now()
    const post = await runAction({
      cwd,
      inputs: {},
      state: { isPost: 'true', cleanup: JSON.stringify(tasks) },
      env: { PATH: `${bin}:${process.env.PATH}` },
      timeoutMs: 80_000,
    })
    const elapsed = Date.now() - started
    expect(post.code, post.stdout).toBe(0)
    // The 30 s timeout, 2 s to SIGKILL, and the step's own start and exit.
    expect(elapsed).toBeGreaterThanOrEqual(30_000)
    expect(elapsed).toBeLessThan(45_000)
    const [pid] = (await readFile(join(cwd, 'pids'), 'utf8')).trim().split('\n').map(Number)
    expect(() => process.kill(pid, 0)).toThrow()
  }, 90_000)
})
