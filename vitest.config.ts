import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests boot real servers; 2 cores cannot run several clusters at once without
    // starving them, so files run one at a time. Unit tests are fast either way.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/global-setup.ts'],
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'results/**'],
  },
});
