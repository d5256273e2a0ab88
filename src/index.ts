import { exitWhenDrained } from './io/exit.js'
import { main } from './action/runner.js'

await main()
await exitWhenDrained()
