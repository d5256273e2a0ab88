/**
 * The target keys for what lives outside the launch's process group: `container:` (the action composes
 * `docker run` / `podman run` itself) and `stop:` (a shell command run on teardown and in the post step).
 */
import { z } from 'zod'
import { expected, scalar } from '../core/fields.js'

const words = (what: string) =>
  z.union(
    [
      z.string().min(1, { error: 'must not be empty' }),
      z.array(z.string({ error: expected('must be text') })).min(1, { error: 'must list at least one word' }),
    ],
    {
      error: expected(`must be ${what} (a string, or a list of words)`),
    },
  )

/** `host:container[:ro|rw]` with an absolute container path; the host side may be a path or a named volume. */
const VOLUME = /^[^:\s]+:\/[^:]*(:(ro|rw))?$/

export function containerSchema() {
  return z
    .strictObject(
      {
        image: z
          .string({ error: expected('must be an image name, e.g. nvcr.io/nvidia/vllm:26.03-py3') })
          .min(1, { error: 'must not be empty' }),
        command: words('the command run in the container')
          .meta({ description: 'What runs in the container; placeholders allowed' })
          .optional(),
        'run-args': words('extra flags for run')
          .meta({ description: 'Extra flags for `run`, e.g. [--ipc=host]' })
          .optional(),
        volumes: z
          .array(
            z
              .string()
              .regex(VOLUME, { error: expected('must be host:container[:ro] with an absolute container path') }),
            {
              error: expected('must be a list of host:container[:ro] strings'),
            },
          )
          .optional(),
        env: z.record(z.string(), scalar, { error: expected('must map variable names to values') }).optional(),
        gpus: z.enum(['all', 'none'], { error: expected('must be all or none') }).default('all'),
        'shm-size': z
          .string({ error: expected('must be a size like 16g') })
          .regex(/^\d+(\.\d+)?[bkmg]?$/i, { error: expected('must be a size like 16g') })
          .optional(),
        runtime: z.enum(['docker', 'podman'], { error: expected('must be docker or podman') }).optional(),
      },
      {
        error: expected(
          'must be a mapping with image (and optional command, run-args, volumes, env, gpus, shm-size, runtime)',
        ),
      },
    )
    .meta({
      description: 'Run the engine in a container (--init, --network host, labelled with the run id); excludes launch',
    })
}

export function stopSchema() {
  return z
    .string({ error: expected('must be a shell command') })
    .min(1, { error: 'must not be empty' })
    .meta({ description: 'Shell command run after teardown and again in the post step (a Ray worker, a systemd unit)' })
}
