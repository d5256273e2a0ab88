/** Which GPUs a target uses: the layers its plan and the runner's environment give, resolved against the host's GPUs. */
import { describe, expect, it } from 'vitest'
import type { ContainerPlan, TargetPlan } from '../../src/core/plan.js'
import { gpuLayers, resolveGpus, runArgsGpus, scopeText } from '../../src/host/index.js'

const HOST = [0, 1, 2, 3].map((index) => ({ index, uuid: `GPU-${index}aaa-bbbb` }))

function target(env: Record<string, string> = {}, container?: Partial<ContainerPlan>): TargetPlan {
  const c = container && { image: 'i', volumes: [], env: {}, gpus: 'all' as const, ...container }
  return { env, ...(c && { container: c }) } as TargetPlan
}

/** The indexes the target counts on HOST, or the problem. */
function counted(t: TargetPlan, runner: Record<string, string> = {}): number[] | string {
  const r = resolveGpus(gpuLayers(t, runner), HOST)
  return 'problem' in r ? r.problem : r.scope.gpus.map((g) => g.index)
}

describe('the GPUs a target uses', () => {
  it.each([
    { name: 'nothing set: every GPU', t: target(), want: [0, 1, 2, 3] },
    { name: 'an index', t: target({ CUDA_VISIBLE_DEVICES: '1' }), want: [1] },
    { name: 'indexes in their order, once', t: target({ CUDA_VISIBLE_DEVICES: '3, 1,3' }), want: [3, 1] },
    { name: 'a UUID prefix', t: target({ CUDA_VISIBLE_DEVICES: 'GPU-2a' }), want: [2] },
    { name: 'all', t: target({ CUDA_VISIBLE_DEVICES: 'all' }), want: [0, 1, 2, 3] },
    { name: 'empty: none', t: target({ CUDA_VISIBLE_DEVICES: '' }), want: [] },
    { name: '-1: none', t: target({ CUDA_VISIBLE_DEVICES: '-1' }), want: [] },
    { name: 'a MIG instance: not narrowed', t: target({ CUDA_VISIBLE_DEVICES: 'MIG-1234' }), want: [0, 1, 2, 3] },
    {
      name: 'an index past the host',
      t: target({ CUDA_VISIBLE_DEVICES: '4' }),
      want: "the target's env CUDA_VISIBLE_DEVICES=4: no GPU 4 among the 4 GPUs of this host",
    },
    {
      name: 'a UUID the host lacks',
      t: target({ CUDA_VISIBLE_DEVICES: '0,GPU-9' }),
      want: "the target's env CUDA_VISIBLE_DEVICES=0,GPU-9: no GPU GPU-9 among the 4 GPUs of this host",
    },
    {
      name: 'CUDA indexes count within NVIDIA_VISIBLE_DEVICES',
      t: target({ NVIDIA_VISIBLE_DEVICES: '2,3', CUDA_VISIBLE_DEVICES: '1' }),
      want: [3],
    },
    {
      name: 'a CUDA index past what NVIDIA_VISIBLE_DEVICES left',
      t: target({ NVIDIA_VISIBLE_DEVICES: '2,3', CUDA_VISIBLE_DEVICES: '2' }),
      want: "the target's env CUDA_VISIBLE_DEVICES=2: no GPU 2 among the 2 GPUs it can see",
    },
    { name: 'none', t: target({ NVIDIA_VISIBLE_DEVICES: 'none' }), want: [] },
    { name: 'container gpus: all', t: target({}, {}), want: [0, 1, 2, 3] },
    {
      name: 'container gpus: all, its NVIDIA_VISIBLE_DEVICES overridden by docker',
      t: target({}, { env: { NVIDIA_VISIBLE_DEVICES: '1' } }),
      want: [0, 1, 2, 3],
    },
    { name: 'container CUDA_VISIBLE_DEVICES', t: target({}, { env: { CUDA_VISIBLE_DEVICES: '2' } }), want: [2] },
    {
      name: 'container gpus: none, --gpus device list',
      t: target({}, { gpus: 'none', runArgs: ['--gpus', '"device=1,3"'], env: { CUDA_VISIBLE_DEVICES: '1' } }),
      want: [3],
    },
    { name: 'container --gpus N', t: target({}, { gpus: 'none', runArgs: '--gpus 2 --ipc=host' }), want: [0, 1] },
    {
      name: 'container podman CDI devices',
      t: target({}, { gpus: 'none', runArgs: ['--device', 'nvidia.com/gpu=2', '--device=nvidia.com/gpu=0'] }),
      want: [2, 0],
    },
    {
      name: 'container gpus: none, NVIDIA_VISIBLE_DEVICES',
      t: target({}, { gpus: 'none', env: { NVIDIA_VISIBLE_DEVICES: 'GPU-1' } }),
      want: [1],
    },
    { name: 'container gpus: none, nothing else: unknown', t: target({}, { gpus: 'none' }), want: [0, 1, 2, 3] },
  ])('$name', ({ t, want }) => {
    expect(counted(t)).toEqual(want)
  })

  it('the runner’s CUDA_VISIBLE_DEVICES, which the engine inherits, unless the target sets its own', () => {
    expect(counted(target(), { CUDA_VISIBLE_DEVICES: '2' })).toEqual([2])
    expect(counted(target({ CUDA_VISIBLE_DEVICES: '1' }), { CUDA_VISIBLE_DEVICES: '2' })).toEqual([1])
    // The runner's NVIDIA_VISIBLE_DEVICES was applied by the runtime it runs in: nvidia-smi lists only those.
    expect(counted(target(), { NVIDIA_VISIBLE_DEVICES: '2' })).toEqual([0, 1, 2, 3])
  })

  it('a UUID where nvidia-smi gave no UUIDs: said so', () => {
    const r = resolveGpus(gpuLayers(target({ CUDA_VISIBLE_DEVICES: 'GPU-1' }), {}), [{ index: 0 }, { index: 1 }])
    expect(r).toEqual({
      problem:
        "the target's env CUDA_VISIBLE_DEVICES=GPU-1: no GPU UUID to match GPU-1 against: nvidia-smi gave none (--query-gpu=index,uuid)",
    })
  })

  it('says which GPUs and how they were chosen', () => {
    const text = (t: TargetPlan) => {
      const r = resolveGpus(gpuLayers(t, {}), HOST)
      return 'problem' in r ? r.problem : `${scopeText(r.scope)} ${r.chosen}`
    }
    expect(text(target({ CUDA_VISIBLE_DEVICES: '1' }))).toBe(
      "GPU 1 of 4 (the target's env CUDA_VISIBLE_DEVICES=1) true",
    )
    expect(text(target({ NVIDIA_VISIBLE_DEVICES: '0,2', CUDA_VISIBLE_DEVICES: 'all' }))).toBe(
      "GPUs 0, 2 of 4 (the target's env NVIDIA_VISIBLE_DEVICES=0,2) true",
    )
    expect(text(target())).toBe("every GPU (4) (nothing names the target's GPUs) false")
    expect(text(target({ CUDA_VISIBLE_DEVICES: '' }))).toBe("no GPU of 4 (the target's env CUDA_VISIBLE_DEVICES=) true")
    expect(text(target({ CUDA_VISIBLE_DEVICES: `${'9'.repeat(300)}` }))).toMatch(
      /^the target's env CUDA_VISIBLE_DEVICES=9{120}…: no GPU 9{120}… among/,
    )
  })

  it.each([
    [undefined, undefined],
    ['--ipc=host', undefined],
    ['--gpus all', { label: 'container run-args --gpus device=all', value: 'all' }],
    [
      '--gpus \'"device=GPU-1,GPU-2"\'',
      { label: 'container run-args --gpus device=GPU-1,GPU-2', value: 'GPU-1,GPU-2' },
    ],
    [['--gpus=count=3'], { label: 'container run-args --gpus 3', value: '0,1,2' }],
    [['--gpus', '1', '--gpus', 'device=2'], { label: 'container run-args --gpus device=2', value: '2' }],
  ])('run-args %j', (runArgs, want) => {
    expect(runArgsGpus(runArgs)).toEqual(want)
  })
})
