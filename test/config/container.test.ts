// `container:` and `stop:` target keys: validated with the field's path, placeholders filled, `{port}` kept for the launcher.
import { afterAll, describe, expect, it } from 'vitest'
import { loadPlan } from '../../src/config/index.js'
import { problemsOfFile } from './edited.js'
import { TEST_ENGINES } from './engines.js'
import { baseConfig, tempDir } from './write.js'

const dir = tempDir()
afterAll(() => dir.remove())
let counter = 0

function withTarget(target: Record<string, unknown>): string {
  const config = baseConfig()
  config.targets = {
    'vllm-{quant}': { engine: 'vllm', matrix: { quant: ['fp8'] }, model: '/models/m-{quant}', ...target },
  }
  return dir.write(`container-${++counter}.yml`, config)
}

const problemsOf = (file: string) => problemsOfFile(dir, file)

describe('container and stop keys', () => {
  it('fill every placeholder but {port} and make the target a launched one', async () => {
    const file = withTarget({
      container: {
        image: 'nvcr.io/nvidia/vllm:26.03-py3',
        command: ['vllm', 'serve', '{model}', '--port', '{port}'],
        'run-args': ['--ipc=host'],
        volumes: ['/models:/models:ro'],
        env: { QUANT: '{quant}' },
        'shm-size': '16g',
        runtime: 'podman',
      },
      stop: 'ssh worker ray stop # {target} {port}',
    })
    const plan = await loadPlan(file, { cwd: dir.path, engines: TEST_ENGINES })
    const [target] = plan.targets
    expect(target.external).toBe(false)
    expect(target.launch).toBeUndefined()
    expect(target.container).toEqual({
      image: 'nvcr.io/nvidia/vllm:26.03-py3',
      command: ['vllm', 'serve', '/models/m-fp8', '--port', '{port}'],
      runArgs: ['--ipc=host'],
      volumes: ['/models:/models:ro'],
      env: { QUANT: 'fp8' },
      gpus: 'all',
      shmSize: '16g',
      runtime: 'podman',
    })
    expect(target.stop).toBe('ssh worker ray stop # vllm-fp8 {port}')
  })

  it('a container target with a url still launches (the url says where it answers)', async () => {
    const plan = await loadPlan(
      withTarget({ container: { image: 'img', command: 'serve' }, url: 'http://127.0.0.1:{port}' }),
      { cwd: dir.path, engines: TEST_ENGINES },
    )
    expect(plan.targets[0].external).toBe(false)
    expect(plan.targets[0].container?.command).toBe('serve')
  })

  it.each([
    {
      name: 'launch and container together',
      target: { launch: 'serve', container: { image: 'img' } },
      path: 'targets.vllm-{quant}.container',
      says: 'not both',
    },
    {
      name: 'no image',
      target: { container: { command: 'serve' } },
      path: 'targets.vllm-{quant}.container.image',
      says: 'required',
    },
    {
      name: 'a bad volume',
      target: { container: { image: 'img', volumes: ['models'] } },
      path: 'targets.vllm-{quant}.container.volumes[0]',
      says: 'host:container',
    },
    {
      name: 'gpus some',
      target: { container: { image: 'img', gpus: 'some' } },
      path: 'targets.vllm-{quant}.container.gpus',
      says: 'all or none',
    },
    {
      name: 'an unknown runtime',
      target: { container: { image: 'img', runtime: 'lxc' } },
      path: 'targets.vllm-{quant}.container.runtime',
      says: 'docker or podman',
    },
    {
      name: 'a bad shm size',
      target: { container: { image: 'img', 'shm-size': 'lots' } },
      path: 'targets.vllm-{quant}.container.shm-size',
      says: 'size like 16g',
    },
    {
      name: 'an unknown container key',
      target: { container: { image: 'img', ports: ['80:80'] } },
      path: 'targets.vllm-{quant}.container.ports',
      says: 'unknown key',
    },
    {
      name: 'an unknown placeholder in the command',
      target: { container: { image: 'img', command: ['serve', '{gpu}'] } },
      path: 'targets.vllm-{quant}.container.command[1]',
      says: 'unknown placeholder {gpu}',
    },
    {
      name: 'an empty stop',
      target: { launch: 'serve', stop: '' },
      path: 'targets.vllm-{quant}.stop',
      says: 'must not be empty',
    },
    {
      name: 'an unknown placeholder in stop',
      target: { launch: 'serve', stop: 'kill {pid}' },
      path: 'targets.vllm-{quant}.stop',
      says: 'unknown placeholder {pid}',
    },
  ])('$name fails naming $path', async ({ target, path, says }) => {
    const problems = await problemsOf(withTarget(target))
    const line = problems.find((p) => p.startsWith(`${path}: `))
    expect(line, problems.join('\n')).toBeDefined()
    expect(line).toContain(says)
  })
})
