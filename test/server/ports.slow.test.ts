import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { hostPort, pickFreePort, portAnswers, waitPortFree } from '../../src/server/ports.js'

describe('hostPort', () => {
  it.each([
    ['http://127.0.0.1:8000', { host: '127.0.0.1', port: 8000 }],
    ['http://127.0.0.1:{port}', { host: '127.0.0.1', port: undefined }],
    ['http://localhost/v1', { host: 'localhost', port: 80 }],
    ['https://gpu-box.internal', { host: 'gpu-box.internal', port: 443 }],
    ['http://[::1]:30000/', { host: '::1', port: 30000 }],
    ['not a url', undefined],
  ])('%s → %o', (url, expected) => {
    expect(hostPort(url)).toEqual(expected)
  })
})

describe('ports', () => {
  it('a picked port can be listened on; portAnswers and waitPortFree follow the listener', async () => {
    const port = await pickFreePort()
    expect(await portAnswers('127.0.0.1', port)).toBe(false)
    const server = net.createServer((s) => s.destroy())
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
    try {
      expect(await portAnswers('127.0.0.1', port)).toBe(true)
      const t0 = Date.now()
      expect(await waitPortFree('127.0.0.1', port, 300)).toBe(false)
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300)
    } finally {
      await new Promise((r) => server.close(r))
    }
    expect(await waitPortFree('127.0.0.1', port, 300)).toBe(true)
  })
})
