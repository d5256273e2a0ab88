import { defineConfig } from 'vitest/config'
import { ALL_TESTS, MACHINE_SLOTS, REAL_TESTS, SLOW_TESTS } from './test/projects.js'

// Two projects, run one after the other by `npm test` (sequence.groupOrder). Which file goes where, and the rule a
// fast file keeps: test/projects.ts and test/projects.test.ts.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: [ALL_TESTS],
          exclude: [REAL_TESTS, ...SLOW_TESTS, '**/node_modules/**'],
          // Pure and in-process tests: files in parallel, as many workers as vitest picks for the machine.
          pool: 'threads',
          // Fails a test that starts a process: such a test is a slow one.
          setupFiles: ['test/helpers/no-processes.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW_TESTS,
          exclude: [REAL_TESTS, '**/node_modules/**'],
          // Holds one of the machine's MACHINE_SLOTS test slots per file, so a second `npm test` beside this one
          // shares the four rather than doubling the load (test/helpers/machine-slots.ts).
          setupFiles: ['test/helpers/machine-slots.ts'],
          // Four files at once. These files mostly wait (a paced server's next token, a subprocess starting, a
          // timeout running out): three at a time kept a 2-core runner's cores about two thirds busy (user + sys
          // 14 of 21.7 core-minutes), and a fourth took the project from 527 s to 420 s. Every wall-clock bound in
          // them allows for a loaded runner (test/helpers/load.ts, test/helpers/lag-trace.ts), so the files beside
          // one are load it already tolerates. (Fewer when the machine is busy at start was tried: the slow project
          // starts right after the fast one, whose own load then reads as busy.)
          maxWorkers: MACHINE_SLOTS,
          // A test's time limit is no bound on what it measures: an e2e test of several action runs takes 8 s on a
          // quiet runner and four times that on a loaded one.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
