// The `run` command the action composes for a `container:` target, and the names it gives containers.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { ContainerPlan } from '../../src/core/plan.js'
import { containerName, makeRunId, runCommand, sanitize } from '../../src/server/container.js'
import { shellQuote } from '../../src/core/shell.js'

const AT = { runId: '4242-1-beefcafe', name: 'llm-bench-4242-1-beefcafe-vllm-fp8', port: 8123 }
const base: ContainerPlan = { image: 'nvcr.io/nvidia/vllm:26.03-py3', volumes: [], env: {}, gpus: 'all' }

/** The words bash sees in the composed line (printed by `printf` instead of running a runtime). */
function words(line: string): string[] {
  const out = spawnSync('bash', ['-c', `set -- ${line.replace(/^exec /, '')}; printf '%s\\0' "$@"`], {
    encoding: 'utf8',
  })
  return out.stdout.split('\0').slice(0, -1)
}

describe('runCommand', () => {
  it('docker: --init, host network, name, run label, no pull, --gpus all, shm, env, volumes, run-args, image, command', () => {
    const c: ContainerPlan = {
      ...base,
      command: ['vllm', 'serve', '/models/m', '--port', '8123'],
      runArgs: ['--ipc=host', '--ulimit', 'memlock=-1'],
      volumes: ['/models:/models:ro'],
      env: { HF_HOME: '/cache dir', QUOTE: "it's" },
      shmSize: '16g',
    }
    expect(words(runCommand('docker', c, AT))).toEqual([
      'docker',
      'run',
      '--init',
      '--network',
      'host',
      '--name',
      AT.name,
      '--label',
      'llm-bench-gate.run=4242-1-beefcafe',
      '--pull=never',
      '--gpus',
      'all',
      '--shm-size',
      '16g',
      '-e',
      'PORT=8123',
      '-e',
      'HF_HOME=/cache dir',
      '-e',
      "QUOTE=it's",
      '-v',
      '/models:/models:ro',
      '--ipc=host',
      '--ulimit',
      'memlock=-1',
      'nvcr.io/nvidia/vllm:26.03-py3',
      'vllm',
      'serve',
      '/models/m',
      '--port',
      '8123',
    ])
  })

  it('podman asks for GPUs through CDI; gpus: none asks for none', () => {
    expect(words(runCommand('podman', base, AT))).toContain('nvidia.com/gpu=all')
    expect(words(runCommand('podman', base, AT))).toContain('--pull=never')
    const none = words(runCommand('podman', { ...base, gpus: 'none' }, AT))
    expect(none).not.toContain('--device')
    expect(none).not.toContain('--gpus')
    expect(words(runCommand('docker', { ...base, gpus: 'none' }, AT))).not.toContain('--gpus')
  })

  it('a string command is split by the shell like a launch command; a list is passed word for word', () => {
    expect(words(runCommand('podman', { ...base, command: 'vllm serve "/models/a b"' }, AT)).slice(-3)).toEqual([
      'vllm',
      'serve',
      '/models/a b',
    ])
    expect(words(runCommand('podman', { ...base, command: ['sh', '-c', 'echo $HOME; exit 1'] }, AT)).slice(-3)).toEqual(
      ['sh', '-c', 'echo $HOME; exit 1'],
    )
  })

  it('execs the runtime, so the launch group leader is the run client itself', () => {
    expect(runCommand('docker', base, AT)).toMatch(/^exec docker run /)
  })
})

describe('names', () => {
  it('run ids are unique per run and carry the workflow run and attempt', () => {
    const a = makeRunId({ GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '2' })
    expect(a).toMatch(/^4242-2-[0-9a-f]{8}$/)
    expect(makeRunId({ GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '2' })).not.toBe(a)
    expect(makeRunId({})).toMatch(/^local-[0-9a-f]{8}$/)
  })

  it('container names keep only what runtimes accept', () => {
    expect(containerName('4242-1-ab', 'qwen3.8/27b fp8')).toBe('llm-bench-4242-1-ab-qwen3.8-27b-fp8')
    expect(sanitize('../x')).toBe('x')
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`)
  })
})

describe('runCommand and pass-env', () => {
  it('passes each pass-env name into the container by name, its value left to the runtime', () => {
    const line = runCommand(
      'docker',
      { ...base, env: { HF_HOME: '/cache' } },
      { ...AT, passEnv: ['HF_TOKEN', 'HF_HOME'] },
    )
    const w = words(line)
    expect(w.slice(w.indexOf('PORT=8123') - 1, w.indexOf('nvcr.io/nvidia/vllm:26.03-py3'))).toEqual([
      '-e',
      'PORT=8123',
      '-e',
      'HF_HOME=/cache',
      '-e',
      'HF_TOKEN',
    ])
  })

  it('the runtime reads the value from its own environment: a stand-in runtime sees it, the command line does not', () => {
    const line = runCommand('docker', base, { ...AT, passEnv: ['HF_TOKEN'] })
    // A `docker` that prints what `-e HF_TOKEN` would hand the container: the variable of its own environment.
    const fake = `docker() { for a in "$@"; do [ "$a" = HF_TOKEN ] && printf '%s' "$HF_TOKEN"; done; }; ${line.replace(/^exec /, '')}`
    const out = spawnSync('bash', ['-c', fake], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HF_TOKEN: 'hf_secret_value' },
    })
    expect(out.stdout).toBe('hf_secret_value')
    expect(line).not.toContain('hf_secret_value')
  })
})
