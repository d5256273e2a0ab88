import { runWatchdog } from './server/watchdog-process.js'

await runWatchdog()
process.exit(0)
