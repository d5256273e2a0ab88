import { runWatchdog } from './server/watchdog.js'

await runWatchdog()
process.exit(0)
