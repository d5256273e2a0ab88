#!/usr/bin/env node
import { main } from './cli/main.js'
import { exitWhenDrained } from './core/exit.js'

await exitWhenDrained(await main(process.argv.slice(2)))
