import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/real needs the llama.cpp server, podman and chromium: `npm run test:real` (vitest.real.config.ts).
    exclude: ['test/real/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Timing tests measure wall-clock schedules; running files in parallel on a
    // 2-core machine would add scheduler noise to every tolerance.
    fileParallelism: false,
  },
})
