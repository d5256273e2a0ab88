/**
 * Just enough of JSON Schema 2020-12 to check a document against the generated schema the way
 * an editor would. An unhandled keyword throws, so the check can never pass by skipping one.
 */
type Schema = Record<string, unknown>

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default', 'examples'])
const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'enum',
  'const',
  'anyOf',
  'items',
  'minItems',
  'minLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'pattern',
])

export function check(schema: Schema, value: unknown, path = '$'): string[] {
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !HANDLED.has(key))
      throw new Error(`${path}: keyword ${key} not supported by the test checker`)
  }
  const errors: string[] = []
  if (schema.type !== undefined && ![schema.type].flat().some((t) => isType(value, t as string))) {
    return [`${path}: expected ${String(schema.type)}`]
  }
  if (schema.const !== undefined && value !== schema.const)
    errors.push(`${path}: expected ${JSON.stringify(schema.const)}`)
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) errors.push(`${path}: not in enum`)
  if (schema.anyOf && !(schema.anyOf as Schema[]).some((s) => check(s, value, path).length === 0))
    errors.push(`${path}: matches no anyOf branch`)
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      errors.push(`${path}: does not match pattern`)
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${path}: too short`)
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: below minimum`)
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: above maximum`)
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      errors.push(`${path}: not above exclusiveMinimum`)
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${path}: too few items`)
    if (schema.items) value.forEach((item, i) => errors.push(...check(schema.items as Schema, item, `${path}[${i}]`)))
  }
  if (isType(value, 'object')) errors.push(...checkObject(schema, value as Record<string, unknown>, path))
  return errors
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string): string[] {
  const errors: string[] = []
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  for (const key of (schema.required ?? []) as string[]) if (!(key in value)) errors.push(`${path}.${key}: required`)
  for (const [key, item] of Object.entries(value)) {
    if (schema.propertyNames) errors.push(...check(schema.propertyNames as Schema, key, `${path}.${key} (name)`))
    if (key in properties) errors.push(...check(properties[key], item, `${path}.${key}`))
    else if (schema.additionalProperties === false) errors.push(`${path}.${key}: not allowed`)
    else if (typeof schema.additionalProperties === 'object')
      errors.push(...check(schema.additionalProperties as Schema, item, `${path}.${key}`))
  }
  return errors
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    case 'integer':
      return Number.isInteger(value)
    case 'null':
      return value === null
    default:
      return typeof value === type
  }
}
