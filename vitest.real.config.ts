import { defineConfig } from 'vitest/config'

// The real-engine suite: the llama.cpp server, real containers and a real browser. Provisioned by
// scripts/provision-real.sh; every test fails (never skips) when a prerequisite is missing.
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // One real engine at a time: two on 2 cores would time each other.
    fileParallelism: false,
  },
})
