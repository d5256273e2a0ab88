/**
 * Setup file of both projects (vitest.config.ts): a test file runs only while it holds one of the machine's test
 * slots (test/helpers/slots.ts), so a second `npm test` beside this one takes turns with it instead of doubling the
 * load on its timed files. One suite alone never waits on itself for long: each project runs MACHINE_SLOTS files at
 * once, and the bundle built beside the fast project holds one slot (test/helpers/hold-slot.ts).
 */
import { afterAll, beforeAll } from 'vitest'
import { SLOT_WAIT_MS, takeSlot, type HeldSlot } from './slots.js'

let held: HeldSlot | undefined

beforeAll(async () => {
  held = await takeSlot()
}, SLOT_WAIT_MS + 60_000)

afterAll(() => {
  held?.release()
  held = undefined
})
