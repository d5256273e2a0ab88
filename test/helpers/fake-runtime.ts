/**
 * A container runtime stand-in, installed as `docker` and `podman` in a folder for PATH: it keeps "local images"
 * as files, pulls as each image's script says, runs a container's command in the foreground as `run` does (the
 * words after the first local image; none local, it fails as a `--pull=never` run does), and records every call
 * with its time and pid. No registry and no container are involved.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A pull's script: succeed after `seconds`, fail with a registry error (a URL carrying credentials), or hang ignoring SIGTERM. */
export type PullScript = { ok: number } | 'fail' | 'hang'

/** The password in the failing pull's error line, which no message may quote. */
export const PULL_PASSWORD = 's3cr3t-registry-pass'

export interface Call {
  /** Milliseconds since the epoch, when the call began (`pull-done`: when the pull ended). */
  at: number
  pid: number
  runtime: string
  args: string[]
}

const key = (image: string) => image.replace(/[/:@]/g, '_')

function script(dir: string): string {
  return `#!/usr/bin/env bash
dir='${dir}'
key() { printf '%s' "$1" | tr '/:@' '___'; }
note() { printf '%s\\t%s\\t%s' "$(date +%s%3N)" "$$" "$(basename "$0")" >> "$dir/calls"; printf '\\t%s' "$@" >> "$dir/calls"; echo >> "$dir/calls"; }
note "$@"
local_image() { [ -e "$dir/images/$(key "$1")" ]; }
case "$1 $2" in
  'image exists') local_image "$3"; exit ;;
  'image inspect')
    image="\${!#}"
    local_image "$image" && { echo sha256:0123abcd; exit 0; }
    echo "Error response from daemon: No such image: $image" >&2; exit 1 ;;
esac
case "$1" in
  pull)
    read -r how seconds < "$dir/pull/$(key "$2")" || how=fail
    case "$how" in
      ok) echo "Pulling from $2"; sleep "$seconds"; : > "$dir/images/$(key "$2")"; note pull-done "$2"; exit 0 ;;
      hang) trap '' TERM; while :; do sleep 0.1; done ;;
      *) echo "Trying to pull $2..." >&2
         echo "Error response from daemon: Head \\"https://bot:${PULL_PASSWORD}@registry.invalid/v2/$2/manifests/latest\\": dial tcp: lookup registry.invalid: no such host" >&2
         exit 1 ;;
    esac ;;
  run)
    shift
    while [ $# -gt 0 ]; do local_image "$1" && { shift; exec "$@"; }; shift; done
    echo "Error: no local image among the run's words (--pull=never)" >&2; exit 125 ;;
  inspect) [ "$3" = '{{.Image}}' ] && echo sha256:0123abcd || echo false; exit 0 ;;
  version) echo 27.0.0; exit 0 ;;
esac
exit 0
`
}

export interface FakeRuntime {
  /** The folder to put first on PATH. */
  bin: string
  /** An image the runtime has locally. */
  present(image: string): void
  /** How a pull of `image` goes. */
  pulls(image: string, how: PullScript): void
  calls(): Call[]
}

export function fakeRuntime(): FakeRuntime {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-fake-runtime-'))
  const bin = join(dir, 'bin')
  for (const sub of [bin, join(dir, 'images'), join(dir, 'pull')]) mkdirSync(sub)
  writeFileSync(join(dir, 'calls'), '')
  for (const runtime of ['docker', 'podman']) {
    writeFileSync(join(bin, runtime), script(dir))
    chmodSync(join(bin, runtime), 0o755)
  }
  return {
    bin,
    present: (image) => writeFileSync(join(dir, 'images', key(image)), ''),
    pulls: (image, how) =>
      writeFileSync(join(dir, 'pull', key(image)), `${typeof how === 'string' ? how : `ok ${how.ok}`}\n`),
    calls: () =>
      readFileSync(join(dir, 'calls'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [at, pid, runtime, ...args] = line.split('\t')
          return { at: Number(at), pid: Number(pid), runtime, args }
        }),
  }
}
