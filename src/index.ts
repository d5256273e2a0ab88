import { exitWhenDrained } from './core/exit.js'
import { main } from './runner.js'

await main()
await exitWhenDrained()
