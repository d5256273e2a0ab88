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
          // Pure and in-process tests: files in parallel, one worker thread per core (vitest's own pick on a 2-core
          // runner is one). A worker keeps the modules it imported from file to file (`isolate: false`): importing the
          // source afresh for each of ~150 files was two thirds of the project's time (127 s isolated with vitest's
          // pick, 89 s isolated on two threads, 36 s shared, on a quiet 2-core machine). What a file changes of the
          // process it restores (fake timers, spies); test/helpers/no-processes.ts runs before every file either way.
          pool: 'threads',
          maxWorkers: MACHINE_SLOTS,
          isolate: false,
          // Holds one of the machine's test slots per file, as the slow project does (test/helpers/machine-slots.ts), and
          // fails a test that starts a process: such a test is a slow one.
          setupFiles: ['test/helpers/machine-slots.ts', 'test/helpers/no-processes.ts'],
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
          // shares the two rather than doubling the load (test/helpers/machine-slots.ts, test/helpers/slots.ts).
          setupFiles: ['test/helpers/machine-slots.ts'],
          // Two files at once, one per core of a 2-core runner. Four at once took the project from 527 s to 420 s
          // when it was smaller, but at 620 s (111 files) each of four clean-clone runs failed a wall-clock bound (a
          // Ctrl-C teardown past 100 s, a 66 ms event-loop lag, a 1.7× serving curve that is 3.2× on a quiet box):
          // each file's processes (the CLI, a simulator or engine, a browser) want a core of their own, and four files
          // on two cores made every bound a bet on the scheduler. Every wall-clock bound in them still allows for a
          // loaded runner (test/helpers/load.ts, test/helpers/lag-trace.ts), for a second suite beside this one.
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
