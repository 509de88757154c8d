import { defineConfig } from 'vitest/config';

// Tests that measure the main event loop's delay run alone, after everything else: on a 2-core machine a
// parallel Chromium test would otherwise add scheduling delay that has nothing to do with the code under test.
const ALONE = ['test/unit/sandbox/hostile.test.ts'];
// Tests that start processes, servers or Chromium wait on a loaded 2-core machine's scheduler; they get one
// retry. A pass on the retry is listed after the run (test/support/retried-reporter.ts, scripts/test.sh), so
// it stays visible. Unit tests get none: a pure function that fails once is a bug.
const PROCESSES = ['test/e2e/**/*.test.ts', 'test/integration/**/*.test.ts'];
// Unit tests are plain Node functions: two run at once (vitest's default on 2 cores is one). Projects with a
// different worker count need a group of their own, so the groups run one after the other: units, processes,
// then the lone timing test.

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
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...ALONE, ...PROCESSES],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'processes', include: PROCESSES, retry: 1, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
