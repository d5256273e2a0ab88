/** A target's quant, id and model for one matrix combination, placeholders filled in the order each may see. */
import type { Path, Problems } from './issues.js'
import { ID_PATTERN } from '../core/fields.js'
import { fill, type Scope } from './placeholders.js'
import type { TargetInput } from './schema.js'

const NOT_YET = '{port} is only known at launch (use it in launch, url, env or engine options)'
export const NO_QUANT = 'no quant is set (give quant, or quant in matrix)'
export const NO_MODEL = 'no model is set (give model, or model in matrix)'

/**
 * Quant, then the target id, then the model, each seeing the ones before: a model path may use
 * `{target}`, but a target id never holds a model path. Matrix `quant`/`model` fill the fields.
 */
export function names(key: string, target: TargetInput, combo: Record<string, string>, path: Path, problems: Problems) {
  const scope = (values: Record<string, string | undefined>, missing: Record<string, string>): Scope => ({
    values: { ...combo, ...defined(values) },
    missing: { port: NOT_YET, quant: NO_QUANT, ...missing },
    keep: [],
  })
  const cannot = (field: string, name: string) => `${field} cannot use {${name}}`
  const quant =
    target.quant === undefined
      ? combo.quant
      : fill(
          target.quant,
          scope({}, { model: cannot('quant', 'model'), target: cannot('quant', 'target') }),
          [...path, 'quant'],
          problems,
        )
  const idScope = scope(
    { quant },
    { model: 'a target name cannot use {model} (paths are not ids)', target: cannot('a target name', 'target') },
  )
  const id = fill(key, idScope, path, problems)
  if (!ID_PATTERN.test(id)) {
    problems.add(
      path,
      `target id "${id}" must use letters, digits, ., _ and - (it becomes part of cell ids and file names)`,
    )
  }
  const model =
    target.model === undefined
      ? combo.model
      : fill(
          target.model,
          scope({ quant, target: id }, { model: cannot('model', 'model') }),
          [...path, 'model'],
          problems,
        )
  return { quant, id, model }
}

export function defined(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined))
}
