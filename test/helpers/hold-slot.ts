/**
 * `tsx test/helpers/hold-slot.ts <command> [args...]`: runs a command while holding one of the machine's test slots
 * (test/helpers/slots.ts), so the bundle `npm test` builds beside its fast project (232 CPU-seconds in 162 s on a
 * 2-core machine) does not run on the cores a second suite's timed files hold. Exits with the command's status; a
 * signal that stops this process is passed on to the command, and the slot is freed either way (a SIGKILL leaves it
 * to be taken over, its owner gone).
 */
import { spawn } from 'node:child_process'
import { takeSlot } from './slots.js'

const [command, ...args] = process.argv.slice(2)
if (!command) {
  process.stderr.write('usage: tsx test/helpers/hold-slot.ts <command> [args...]\n')
  process.exit(2)
}
const held = await takeSlot()
const child = spawn(command, args, { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal))
child.on('error', (error) => {
  held.release()
  process.stderr.write(`hold-slot: cannot run ${command}: ${error.message}\n`)
  process.exit(127)
})
child.on('exit', (code, signal) => {
  held.release()
  process.exit(code ?? (signal ? 128 : 1))
})
