import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The default summary, then every skipped suite with its reason (test/support/tools.ts).
    reporters: ['default', './test/support/skip-reporter.ts'],
  },
});
