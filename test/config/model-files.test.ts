/**
 * The local model files a target names (its `model` path, a launch's -m/--model/--model-path value, a container
 * path under a bind mount), which ones this machine lacks, and `validate`'s warning naming each.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { hostPathOf, launchModelPaths, missingModelFiles, modelFiles } from '../../src/config/model-files.js'
import { main } from '../../src/cli/main.js'
import { targetPlan } from '../server/target.js'
import { baseConfig, tempDir } from './write.js'

const dir = tempDir()
afterAll(() => dir.remove())
mkdirSync(join(dir.path, 'models'))
writeFileSync(join(dir.path, 'models/here.gguf'), 'GGUF')

describe('launchModelPaths', () => {
  it.each<[string | string[], string[]]>([
    ['llama-server -m /m/x.gguf -c 4096', ['/m/x.gguf']],
    ['llama-server -m models/x.gguf', ['models/x.gguf']],
    ['llama-server --model=./x.gguf -md ./draft.gguf', ['./x.gguf']],
    ['python -m sglang.launch_server --model-path /models/qwen --port {port}', ['/models/qwen']],
    ["vllm serve --model '/models/qwen'", ['/models/qwen']],
    // a hub id, a module, a variable: not local paths
    ['vllm serve --model Qwen/Qwen3-8B', []],
    ['python -m vllm.entrypoints.openai.api_server', []],
    ['llama-server -m "$MODEL"', []],
    [['serve', '--model', '/models/qwen'], ['/models/qwen']],
    // a serving command's first argument
    ['vllm serve /models/qwen --port {port}', ['/models/qwen']],
    ['/opt/venv/bin/vllm serve ./qwen-nvfp4 --max-model-len 8192', ['./qwen-nvfp4']],
    ["trtllm-serve '/models/qwen' --backend pytorch", ['/models/qwen']],
    ['vllm serve Qwen/Qwen3-8B --port {port}', []],
    ['vllm serve --config cfg.yaml', []],
    ['trtllm-serve disaggregated -c disagg.yaml', []],
  ])('%s → %o', (launch, paths) => {
    expect(launchModelPaths(launch)).toEqual(paths)
  })
})

describe('hostPathOf', () => {
  it.each<[string, string | undefined]>([
    ['/models/qwen/config.json', '/data/models/qwen/config.json'],
    ['/models', '/data/models'],
    ['/modelsx/a', undefined],
    ['/opt/in-image', undefined],
    ['relative/x', undefined],
  ])('%s → %s', (path, host) => {
    expect(hostPathOf(path, ['named-volume:/cache', '/data/models:/models:ro'])).toBe(host)
  })
})

describe('modelFiles', () => {
  it('a bare launch: the model path and the launch flags, relative to the workdir, each file once', () => {
    const target = targetPlan({
      model: './models/here.gguf',
      launch: `llama-server -m ${join(dir.path, 'models/here.gguf')} --model-path models/gone.gguf`,
      workdir: dir.path,
    })
    expect(modelFiles(target)).toEqual([
      { field: 'targets.fake-target.model', path: './models/here.gguf', file: join(dir.path, 'models/here.gguf') },
      { field: 'targets.fake-target.launch', path: 'models/gone.gguf', file: join(dir.path, 'models/gone.gguf') },
    ])
    expect(missingModelFiles(target).map((f) => f.path)).toEqual(['models/gone.gguf'])
  })

  it('a launch that changes directory first: its relative paths are left alone, absolute ones checked', () => {
    const target = targetPlan({ launch: 'cd /opt/llama && ./llama-server -m models/q4.gguf --model /gone/x.gguf' })
    expect(missingModelFiles(target).map((f) => f.path)).toEqual(['/gone/x.gguf'])
  })

  it('a container: only paths under a bind mount, checked on the host side', () => {
    const target = targetPlan({
      model: '/models/gone.gguf',
      container: {
        image: 'img',
        command: ['llama-server', '-m', '/models/here.gguf', '--model', '/in-image/x.gguf'],
        volumes: [`${join(dir.path, 'models')}:/models:ro`],
        env: {},
        gpus: 'none',
      },
    })
    expect(missingModelFiles(target)).toEqual([
      { field: 'targets.fake-target.model', path: '/models/gone.gguf', file: join(dir.path, 'models/gone.gguf') },
    ])
  })

  it('an attached server names none, a hub id names none', () => {
    expect(modelFiles(targetPlan({ model: '/gone', url: 'http://h:1', external: true }))).toEqual([])
    expect(modelFiles(targetPlan({ model: 'Qwen/Qwen3-8B', launch: 'vllm serve {model}' }))).toEqual([])
  })
})

describe('validate', () => {
  const written: string[] = []
  afterEach(() => {
    vi.restoreAllMocks()
    written.length = 0
  })
  const capture = () => {
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true))
  }

  it('warns of a missing model file naming its field, and exits 0', async () => {
    const config = baseConfig()
    config.targets = {
      llama: { engine: 'llamacpp', launch: 'llama-server -m ./models/gone.gguf --port {port}' },
      here: { engine: 'llamacpp', launch: `llama-server -m ${join(dir.path, 'models/here.gguf')} --port {port}` },
    }
    capture()
    const code = await main(['validate', '--config', join(dir.path, dir.write('models.yml', config))])
    const warnings = written.filter((w) => w.startsWith('warning:'))
    expect(code, written.join('')).toBe(0)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^warning: targets\.llama\.launch: model file \.\/models\/gone\.gguf \(\/.*\/models\/gone\.gguf on this machine\) does not exist on this machine/,
    )
  })

  it('exits 2 on a launch with --port 8080 and no {port}, naming the key', async () => {
    const config = baseConfig()
    config.targets = { llama: { engine: 'llamacpp', launch: 'llama-server -m /m/x.gguf --port 8080' } }
    capture()
    const code = await main(['validate', '--config', join(dir.path, dir.write('port.yml', config))])
    expect(code).toBe(2)
    expect(written.join('')).toMatch(/error: targets\.llama\.launch: passes --port 8080 and no \{port\}.*never polls/)
  })
})
