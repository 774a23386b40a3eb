import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests boot real servers; 2 cores cannot run several clusters at once without
    // starving them, so files run one at a time (across projects too). Unit tests are fast either way.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/global-setup.ts'],
    exclude: ['node_modules/**', 'results/**'],
    // GitHub's workflow parser imports its JSON schema without an import attribute, which Node 20 refuses;
    // inlined, vite loads it (test/nightly-workflow.test.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['**/*.test.ts'], exclude: ['node_modules/**', 'results/**', 'test/docker/**'] },
      },
      {
        // The docker backend's tests: they skip, saying why, where no Docker engine answers.
        extends: true,
        test: { name: 'docker', include: ['test/docker/**/*.test.ts'] },
      },
    ],
  },
});
