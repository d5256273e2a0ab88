/**
 * Which project of vitest.config.ts runs a test file. `slow`: every file under test/e2e/ and test/cli/ (the bundled
 * action and CLI run as subprocesses) and every `*.slow.test.ts`; `fast`: every other `*.test.ts` under test/ but
 * test/real/ (`npm run test:real`, vitest.real.config.ts). test/projects.test.ts holds the fast files to the rule.
 */
export const SLOW_TESTS = ['test/e2e/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/**/*.slow.test.ts']

export const ALL_TESTS = 'test/**/*.test.ts'

export const REAL_TESTS = 'test/real/**'

/** Test files (and bundles) at once on the machine, whichever runs hold them (test/helpers/slots.ts). */
export const MACHINE_SLOTS = 2
