#!/usr/bin/env node
import { main } from './cli/main.js'
import { exitWhenDrained } from './io/exit.js'

await exitWhenDrained(await main(process.argv.slice(2)))
