import { defineConfig } from 'vitest/config';

// Tests that measure the main event loop's delay run alone, after everything else: on a 2-core machine a
// parallel Chromium test would otherwise add scheduling delay that has nothing to do with the code under test.
const ALONE = ['test/unit/sandbox/hostile.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: ALONE, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
