import { exitWhenDrained } from './core/exit.js'
import { main } from './action/runner.js'

await main()
await exitWhenDrained()
