/** Loopback port helpers: pick a free one, tell whether something answers on one. */
import net from 'node:net'

/** A port the kernel considers free on 127.0.0.1 right now. */
export function pickFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** True when a TCP connection to host:port is accepted. */
export function portAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port })
    const done = (answers: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answers)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

/** Polls until nothing answers on the port; false if something still does after `timeoutMs`. */
export async function waitPortFree(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (!(await portAnswers(host, port, 250))) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Host and port of a base URL (default ports by scheme); undefined while it holds `{port}`. */
export function hostPort(url: string): { host: string; port: number | undefined } | undefined {
  try {
    const parsed = new URL(url.replaceAll('{port}', '1'))
    const host = parsed.hostname.replace(/^\[|\]$/g, '')
    if (url.includes('{port}')) return { host, port: undefined }
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80
    return { host, port }
  } catch {
    return undefined
  }
}
