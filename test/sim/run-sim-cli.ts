// Runs the simulator CLI from source for tests (the bundled CLI does the same from dist/).
import { simMain } from '../../src/sim/index.js'

process.exitCode = await simMain(process.argv.slice(2))
