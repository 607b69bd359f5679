import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The second lists the engine tests that could not run for want of a tool (test/support/requirements.ts).
    reporters: ['default', './test/support/missing-tools-reporter.ts'],
  },
});
