import { main } from './runner.js'

// Exit explicitly: a keep-alive socket or a timer left by a dependency must not hold the step open.
await main()
process.exit()
