import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends every run with the list of skipped tests, grouped by suite, with the reason the suite
 * gives (see tools.ts), so a green summary never hides a suite that did not run.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const where = `${relative(process.cwd(), module.moduleId)} › ${test.parent.type === 'suite' ? test.parent.fullName : test.name}`;
        skipped.set(where, (skipped.get(where) ?? 0) + 1);
      }
    }
    if (skipped.size === 0) return;
    const total = [...skipped.values()].reduce((sum, count) => sum + count, 0);
    const lines = [...skipped].map(([where, count]) => `  ${where}: ${count} test${count === 1 ? '' : 's'}`);
    process.stdout.write(`\n${total} tests SKIPPED (run with the tools they name; REQUIRE_ENGINES=1 makes this an error):\n${lines.join('\n')}\n\n`);
  }
}
