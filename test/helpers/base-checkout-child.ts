/**
 * A main process that checks out a base commit through a RunGuard with the real watchdog, prints the checkout
 * as one JSON line, then waits to be killed. Run with `node --import tsx`: argv is repo, sha, temp folder,
 * watchdog script (the watchdog inherits NODE_OPTIONS, so the TypeScript entry works without a bundle).
 */
import { consoleLogger } from '../../src/core/log.js'
import { checkoutBase } from '../../src/run/base-commit.js'
import { createRunGuard } from '../../src/server/guard.js'

const [repoRoot, sha, tempDir, watchdogScript] = process.argv.slice(2)
const log = consoleLogger()
const guard = createRunGuard({ runId: 'base-checkout-child', log, watchdogScript })
const checkout = await checkoutBase({ repoRoot, sha, tempDir, guard, log })
process.stdout.write(`${JSON.stringify(checkout)}\n`)
setInterval(() => undefined, 60_000)
