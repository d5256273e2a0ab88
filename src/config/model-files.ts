/**
 * The local model files a target names, and which of them this machine lacks. A path is the target's `model` when
 * it is absolute or `./`/`../` relative, or the value of a launch's `-m`/`--model` (llama.cpp's flags,
 * tools/server/README.md of ggml-org/llama.cpp) or `--model-path` (SGLang's, python/sglang/srt/server_args.py) when it
 * is a plain word that is such a path or a `.gguf`/`.safetensors` file, and so is the model a serving command takes as
 * its first argument: `vllm serve <model_tag>` (docs/configuration/serve_args.md of vllm-project/vllm) and
 * `trtllm-serve <model>` (docs/source/commands/trtllm-serve of NVIDIA/TensorRT-LLM). Relative paths are resolved
 * against the launch's working directory, and left alone when the launch changes directory (`cd`, `pushd`) before
 * using them. Inside a container a path belongs to the image, unless it lies under a bind mount
 * (`volumes: [host:container]`): then its host side is the file to check, and any other path is left alone.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, posix, resolve } from 'node:path'
import type { ContainerPlan, TargetPlan } from '../core/plan.js'

/** A local model path a target names: the field it comes from, the path as written and the file it means here. */
export interface ModelFile {
  field: string
  path: string
  file: string
}

const PATH_WORD = /^[A-Za-z0-9_./+@%,:-]+$/
const MODEL_FLAGS = ['-m', '--model', '--model-path']
/** A launch that moves before it runs the engine: its relative paths are not relative to where it starts. */
const CHANGES_DIRECTORY = /(?:^|[\s;&|(])(?:cd|pushd)\s/

/** A model named by a path (`/models/x.gguf`, `./x`; `~` is not expanded), or undefined for a hub id. */
export function localModelPath(model: string | undefined, cwd: string): string | undefined {
  if (!model || !isPathLike(model)) return undefined
  return resolve(cwd, model)
}

const isPathLike = (word: string) => isAbsolute(word) || word.startsWith('./') || word.startsWith('../')
const isModelFile = (word: string) => /\.(gguf|safetensors)$/.test(word)

/** A word as the shell reads it when it needs nothing but its quotes removed; undefined otherwise. */
function plainWord(word: string | undefined): string | undefined {
  const unquoted = word && /^'[^']*'$|^"[^"$`\\]*"$/.test(word) ? word.slice(1, -1) : word
  return unquoted && PATH_WORD.test(unquoted) ? unquoted : undefined
}

/** The program a word runs, as its last path segment (`/usr/bin/vllm` → `vllm`). */
const programOf = (word: string) => word.slice(word.lastIndexOf('/') + 1)

/** The word a serving command takes its model from as first argument, when `words[i]` starts one; else undefined. */
function positionalModel(words: readonly string[], i: number): string | undefined {
  const program = programOf(words[i])
  const model =
    program === 'vllm' && words[i + 1] === 'serve'
      ? words[i + 2]
      : program === 'trtllm-serve'
        ? words[i + 1]
        : undefined
  return model?.startsWith('-') ? undefined : model
}

/**
 * Every plain value of a model flag in `words` (`-m x`, `--model=x`, `--model-path x`) and every serving command's
 * positional model (`vllm serve x`, `trtllm-serve x`), in order.
 */
function flagValues(words: readonly string[]): string[] {
  const values: string[] = []
  for (const [i, word] of words.entries()) {
    const joined = MODEL_FLAGS.find((flag) => word.startsWith(`${flag}=`))
    const value = joined ? word.slice(joined.length + 1) : MODEL_FLAGS.includes(word) ? words[i + 1] : undefined
    const plain = plainWord(value ?? positionalModel(words, i))
    if (plain) values.push(plain)
  }
  return values
}

const wordsOf = (command: string | readonly string[] | undefined): string[] =>
  command === undefined ? [] : typeof command === 'string' ? command.trim().split(/\s+/) : [...command]

/**
 * The model a launch command names (`-m`/`--model`/`--model-path`, or a serving command's first argument), when it is
 * a plain word that is a path or ends in .gguf or .safetensors: a file, or a folder of safetensors.
 */
export function launchModelPath(launch: string | undefined, cwd: string): string | undefined {
  const path = launchModelPaths(launch)[0]
  return path === undefined ? undefined : resolve(cwd, path)
}

/** The local model paths of a launch command: model flag values that are paths or model files. */
export function launchModelPaths(launch: string | readonly string[] | undefined): string[] {
  return flagValues(wordsOf(launch)).filter((w) => isPathLike(w) || isModelFile(w))
}

/** The host file behind an absolute container path under a bind mount (`/data:/models:ro`); undefined otherwise. */
export function hostPathOf(path: string, volumes: readonly string[]): string | undefined {
  if (!posix.isAbsolute(path)) return undefined
  const inside = posix.normalize(path)
  for (const volume of volumes) {
    const [host, target] = volume.split(':')
    if (!host?.startsWith('/') || !target) continue
    const mount = posix.normalize(target).replace(/\/$/, '')
    if (inside === mount) return host
    if (inside.startsWith(`${mount}/`)) return posix.join(host, inside.slice(mount.length + 1))
  }
  return undefined
}

function containerFiles(key: string, model: string | undefined, c: ContainerPlan): ModelFile[] {
  const named = [
    ...(model && isPathLike(model) ? [{ field: `targets.${key}.model`, path: model }] : []),
    ...launchModelPaths(c.command).map((path) => ({ field: `targets.${key}.container.command`, path })),
  ]
  return named.flatMap(({ field, path }) => {
    const file = hostPathOf(path, c.volumes)
    return file === undefined ? [] : [{ field, path, file }]
  })
}

/** The local model files a launched target names, each once (its `model` first); none for an attached target. */
export function modelFiles(target: TargetPlan, cwd = process.cwd()): ModelFile[] {
  if (target.external) return []
  const key = target.sourceKey
  const files = target.container
    ? containerFiles(key, target.model, target.container)
    : [
        ...(target.model && isPathLike(target.model) ? [{ field: `targets.${key}.model`, path: target.model }] : []),
        ...launchModelPaths(target.launch).map((path) => ({ field: `targets.${key}.launch`, path })),
      ]
        .filter((f) => isAbsolute(f.path) || !CHANGES_DIRECTORY.test(target.launch ?? ''))
        .map((f) => ({ ...f, file: resolve(target.workdir ?? cwd, f.path) }))
  return files.filter((f, i) => files.findIndex((g) => g.file === f.file) === i)
}

/** The model files a target names that do not exist on this machine. */
export function missingModelFiles(target: TargetPlan, cwd = process.cwd()): ModelFile[] {
  return modelFiles(target, cwd).filter((f) => !existsSync(f.file))
}

/** `path (host file)` when a container path was mapped to its mount, else the path. */
export function describeModelFile(f: ModelFile): string {
  return f.file === f.path ? f.path : `${f.path} (${f.file} on this machine)`
}

/** `validate`'s warnings: each missing model file of the plan once, naming its field. */
export function modelFileWarnings(targets: readonly TargetPlan[], cwd = process.cwd()): string[] {
  const lines = targets.flatMap((t) =>
    missingModelFiles(t, cwd).map(
      (f) =>
        `${f.field}: model file ${describeModelFile(f)} does not exist on this machine (a run here fails this target before launching it; a runner that has the file is fine)`,
    ),
  )
  return [...new Set(lines)]
}
