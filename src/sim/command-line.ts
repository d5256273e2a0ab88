/** `llm-bench-gate sim …`: the simulator as a process, the way the sim engine adapter launches it. */
import { SIM_FAULTS, type SimFault } from './profile.js'
import { startSimServer, type SimServerOptions } from './server.js'
import { SHIPPED_PROFILE_NAMES } from './profiles.js'

const FAULTS: readonly (SimFault | 'none')[] = [...SIM_FAULTS, 'none']

export const SIM_USAGE = `usage: llm-bench-gate sim --profile NAME|PATH --port N [--host 127.0.0.1] [--time-scale X] [--seed S] [--load-ms MS] [--fault ${FAULTS.join('|')}]
  profiles: ${SHIPPED_PROFILE_NAMES.join(', ')}
  --fault: broken output at unchanged speed (overrides the profile's fault; none serves it healthy)`

class UsageError extends Error {}

const FLAGS = ['profile', 'port', 'host', 'time-scale', 'seed', 'load-ms', 'fault'] as const
type Flag = (typeof FLAGS)[number]

function number(flag: Flag, raw: string, check: (n: number) => boolean, what: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`--${flag}: expected ${what}, got "${raw}"`)
  return n
}

function fault(raw: string | undefined): SimFault | 'none' | undefined {
  if (raw === undefined || (FAULTS as readonly string[]).includes(raw)) return raw as SimFault | 'none' | undefined
  throw new UsageError(`--fault: expected one of ${FAULTS.join(', ')}, got "${raw}"`)
}

export function parseSimArgs(argv: readonly string[]): SimServerOptions {
  const args = argv[0] === 'sim' ? argv.slice(1) : argv.slice()
  const values = new Map<Flag, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [undefined, undefined]
    if (!name || !(FLAGS as readonly string[]).includes(name)) throw new UsageError(`unknown argument "${arg}"`)
    const value = inline ?? args[++i]
    if (value === undefined) throw new UsageError(`--${name} needs a value`)
    values.set(name as Flag, value)
  }
  const profile = values.get('profile')
  if (!profile) throw new UsageError('--profile is required')
  const port = values.get('port')
  if (port === undefined) throw new UsageError('--port is required')
  const opt = (flag: Flag, check: (n: number) => boolean, what: string) => {
    const raw = values.get(flag)
    return raw === undefined ? undefined : number(flag, raw, check, what)
  }
  return {
    profile,
    port: number('port', port, (n) => Number.isInteger(n) && n >= 0 && n < 65536, 'a port number'),
    host: values.get('host') ?? '127.0.0.1',
    timeScale: opt('time-scale', (n) => n > 0, 'a number > 0'),
    seed: opt('seed', Number.isInteger, 'an integer'),
    loadMs: opt('load-ms', (n) => n >= 0, 'milliseconds >= 0'),
    fault: fault(values.get('fault')),
  }
}

/** Runs the simulator until SIGTERM/SIGINT; resolves with the exit code. */
export async function simMain(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(SIM_USAGE + '\n')
    return 0
  }
  let options: SimServerOptions
  try {
    options = parseSimArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`sim: ${error.message}\n${SIM_USAGE}\n`)
    return 2
  }

  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  try {
    if (options.loadMs) process.stderr.write(`sim: loading ${options.profile} for ${options.loadMs} ms\n`)
    const server = await startSimServer({ ...options, signal: stop.signal })
    const p = server.profile
    process.stdout.write(
      `sim: ${p.name} (${p.model}, as ${p.emulates}) listening on http://${options.host}:${server.port} (time scale ${options.timeScale ?? 1}, seed ${options.seed ?? 1}${p.fault ? `, fault ${p.fault}` : ''})\n`,
    )
    if (!stop.signal.aborted)
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }))
    await server.close()
    return 0
  } catch (error) {
    if (stop.signal.aborted) return 0
    process.stderr.write(`sim: ${(error as Error).message}\n`)
    return 1
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
  }
}
