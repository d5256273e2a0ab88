/**
 * `bandwidth` and `model-bytes` in the matrix file: in `defaults` or on a target (the target's wins), parsed to
 * bytes per second and bytes; a malformed value is an error naming the field.
 */
import { describe, expect, it } from 'vitest'
import { editedConfigs } from './edited.js'

const { plan, problemsOf } = editedConfigs()

describe('bandwidth and model-bytes', () => {
  it('are absent unless given', () => {
    const { settings } = plan(() => {}).targets[0]
    expect(settings.bandwidth).toBeUndefined()
    expect(settings.modelBytes).toBeUndefined()
  })

  it('parse from defaults, the target overriding', () => {
    const { settings } = plan((c) => {
      c.defaults = { bandwidth: '273GB/s', 'model-bytes': '20GB' }
      c.targets['vllm-fp8']['model-bytes'] = '16.4GB'
    }).targets[0]
    expect(settings.bandwidth).toBe(273e9)
    expect(settings.modelBytes).toBe(16.4e9)
  })

  it.each([
    ['3.35TB/s', 3.35e12],
    ['256GiB/s', 256 * 2 ** 30],
  ])('take %s as a bandwidth', (text, bytes) => {
    expect(plan((c) => (c.defaults = { bandwidth: text })).targets[0].settings.bandwidth).toBe(bytes)
  })

  it.each([
    ['bandwidth', '273GB', 'defaults.bandwidth: "273GB" is not a bandwidth like 273GB/s or 3.35TB/s'],
    ['bandwidth', 273, 'defaults.bandwidth: must be a bandwidth like 273GB/s or 3.35TB/s (got 273)'],
    ['model-bytes', '16.4', 'defaults.model-bytes: "16.4" is not a size like 16.4GB or 15GiB'],
    ['model-bytes', '0GB', 'defaults.model-bytes: "0GB" is not a size like 16.4GB or 15GiB'],
  ])('refuse %s: %j, naming the field', async (key, value, message) => {
    const problems = await problemsOf((c) => (c.defaults = { [key]: value }))
    expect(problems.join('\n')).toContain(message)
  })
})
