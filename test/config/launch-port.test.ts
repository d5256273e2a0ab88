/**
 * A launch that passes its own `--port` (copied from an engine's README) while the url polls `{port}` is refused
 * with its field named, as `validate` loads the file; one that uses {port}, reads $PORT or agrees with `port` is fine.
 */
import { describe, expect, it } from 'vitest'
import { editedConfigs, type Edit } from './edited.js'
import { literalPort } from '../../src/config/launch-port.js'

const { plan, problemsOf } = editedConfigs()
const target =
  (extra: Record<string, unknown>): Edit =>
  (c) => {
    c.targets = { llama: { engine: 'llamacpp', ...extra } }
  }

describe('a launch passing a port the gate never polls', () => {
  it('refuses --port 8080 without {port}, naming the field and the port', async () => {
    const problems = await problemsOf(target({ launch: 'llama-server -m /models/q.gguf --port 8080 -c 4096' }))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(
      /^targets\.llama\.launch: passes --port 8080 and no \{port\} while url http:\/\/127\.0\.0\.1:\{port\} uses \{port\}: the engine would listen on 8080, a port the gate never polls; write --port \{port\} \(or set port: 8080\) \(line \d+\)$/,
    )
  })

  it('refuses it in a container command, and in each matrix expansion once', async () => {
    const problems = await problemsOf((c) => {
      c.targets = {
        'llama-{quant}': {
          engine: 'llamacpp',
          matrix: { quant: ['q4', 'q8'] },
          container: { image: 'img', command: ['llama-server', '-m', '/m/{quant}.gguf', '--port=8080'] },
        },
      }
    })
    expect(problems, problems.join('\n')).toHaveLength(1)
    expect(problems[0]).toMatch(/^targets\.llama-\{quant\}\.container\.command: passes --port 8080 and no \{port\}/)
  })

  it('refuses a port that differs from port:', async () => {
    const problems = await problemsOf(target({ launch: 'llama-server --port 8080', port: 9000 }))
    expect(problems).toEqual([
      expect.stringMatching(/^targets\.llama\.launch: passes --port 8080 but port is 9000: .*write --port \{port\}/),
    ])
  })

  it.each<[string, Record<string, unknown>]>([
    ['--port {port}', { launch: 'llama-server --port {port}' }],
    ['$PORT, which the launcher sets', { launch: 'llama-server --port "$PORT"' }],
    ['no port at all (a script reading PORT)', { launch: './scripts/serve.sh' }],
    ['the port port: names', { launch: 'llama-server --port 8080', port: 8080 }],
    ['a url with its own port', { launch: 'llama-server --port 8080', url: 'http://127.0.0.1:8080' }],
    ['a container command with {port}', { container: { image: 'img', command: ['serve', '--port', '{port}'] } }],
    ['a container without a command', { container: { image: 'img' } }],
    ['an attached server', { url: 'http://127.0.0.1:8080' }],
  ])('accepts %s', (_name, extra) => {
    expect(plan(target(extra)).targets).toHaveLength(1)
  })
})

describe('literalPort', () => {
  it.each<[string | string[], string | undefined]>([
    ['serve --port 8080', '8080'],
    ['serve --port=8080 -c 1', '8080'],
    ["serve --port '8080'", '8080'],
    [['serve', '--port', '8000'], '8000'],
    ['serve --port {port}', undefined],
    ['serve --port $PORT', undefined],
    ['serve --ports 8080', undefined],
    ['serve --port 80800', undefined],
  ])('%s → %s', (command, port) => {
    expect(literalPort(command)).toBe(port)
  })
})
