import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** The annotation type test/support/requirements.ts gives a test that could not run for want of a tool. */
export const MISSING_REQUIREMENT = 'missing-requirement';

/**
 * Prints, after vitest's own summary, every test that could not run because a tool or data it
 * needs is not installed, and why: skipped ones, or failed ones when REQUIRE_ENGINES=1.
 */
export default class MissingToolsReporter implements Reporter {
  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const rows: string[] = [];
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const missing = test.annotations().find((annotation) => annotation.type === MISSING_REQUIREMENT);
        if (!missing) continue;
        const file = relative(testModule.project.config.root, testModule.moduleId);
        rows.push(`  ${test.result().state.padEnd(7)} ${file} > ${test.fullName}\n          ${missing.message}`);
      }
    }
    if (rows.length === 0) return;
    // vitest prints its summary in the same turn as this hook: wait one turn to come after it.
    await new Promise((wake) => setImmediate(wake));
    const verdict = process.env.REQUIRE_ENGINES === '1' ? 'REQUIRE_ENGINES=1, so they fail the run' : 'set REQUIRE_ENGINES=1 to make them fail the run';
    process.stdout.write(`\n${rows.length} engine test group(s) could not run here (${verdict}):\n${rows.join('\n')}\n\n`);
  }
}
