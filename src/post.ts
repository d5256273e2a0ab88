import { post } from './runner.js'

await post()
process.exit()
