import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Lists every test that passed only on a retry (vitest.config.ts allows one retry for the tests that
 * start processes, servers or Chromium). A retried pass is not hidden: scripts/test.sh prints this list
 * after the counts, so a test that needs its retry shows in every run until it is made steady.
 */
export default class RetriedReporter implements Reporter {
  private readonly retried: string[] = [];

  onTestCaseResult(test: TestCase): void {
    const retries = test.diagnostic()?.retryCount ?? 0;
    if (retries > 0 && test.result().state === 'passed') {
      this.retried.push(`${test.module.relativeModuleId} › ${test.fullName} (passed on try ${retries + 1})`);
    }
  }

  onTestRunEnd(): void {
    mkdirSync('test-results', { recursive: true });
    writeFileSync('test-results/retried.txt', this.retried.map((line) => `${line}\n`).join(''));
  }
}
