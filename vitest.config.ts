import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test tiers. A file's tier follows from its path, so a new test needs no edit here:
 *   - `test/docker/**`                                 → docker   (the docker backend; skips without an engine)
 *   - `**\/*.browser.test.ts`                           → browser  (drives Chromium)
 *   - `test/integration/**`, `**\/*.servers.test.ts`    → servers  (boots real Redis/etcd/ZooKeeper/Postgres)
 *   - every other `**\/*.test.ts`                       → unit     (no server, no browser: literal data, in-process)
 * Groups run one after another (sequence.groupOrder): unit files in parallel first, then each heavy tier alone.
 * The servers tier runs three files at a time. A run's CPU comes mostly at its start (Node, the clients, initdb,
 * the JVMs) and little while its clients wait on the lock, so the 2 cores were ~60 % busy on average with two
 * files at a time (507 s for the tier) and ~82 % with three (383–391 s; 30 s samples 65–95 %). Three at a time,
 * every test passed in four .ci/runs and in two of three tier runs alone; the third failed on a harness race the
 * load exposed (a nemesis kill as the run stopped), since fixed (2026-12-03). Each run has its own ports
 * (common/free-port.ts reserves them), folders and pid files, so files never meet. Browser and docker files stay
 * one at a time: Chromium and dockerd beside a cluster starve it.
 */
const SERVERS = ['test/integration/**/*.test.ts', '**/*.servers.test.ts'];
const BROWSER = ['**/*.browser.test.ts'];
const DOCKER = ['test/docker/**/*.test.ts'];
const IGNORED = ['node_modules/**', 'results/**'];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    exclude: IGNORED,
    // GitHub's workflow parser imports its JSON schema without an import attribute, which Node 20 refuses;
    // inlined, vite loads it (test/nightly-workflow.test.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    projects: [
      {
        extends: true,
        // No global setup: unit tests need no server binaries, so `npm run test:unit` never runs apt.
        // FENCEPOST_TEST_TIER lets the server kits in test/support refuse to boot a cluster in this pool.
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          exclude: [...IGNORED, ...SERVERS, ...BROWSER, ...DOCKER],
          fileParallelism: true,
          // A worker per core (vitest's default leaves one idle: 1 on 2 cores): the tier took 24 s instead of 40 s.
          maxWorkers: Math.max(2, os.availableParallelism()),
          // One module graph per worker, not per file: the unit files hold no process-wide state between them, and
          // re-importing the harness for each of ~220 files was most of the tier (import 55 s of a 107 s run beside
          // helpers; 45 s with this, and 51–62 s with the files shuffled by three seeds, all green, 2026-12-06).
          isolate: false,
          env: { FENCEPOST_TEST_TIER: 'unit' },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'servers',
          include: SERVERS,
          exclude: IGNORED,
          fileParallelism: true,
          maxWorkers: 3,
          globalSetup: ['test/global-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER,
          exclude: IGNORED,
          fileParallelism: false,
          globalSetup: ['test/browser-setup.ts'],
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The docker backend's tests: they skip, saying why, where no Docker engine answers.
        extends: true,
        test: {
          name: 'docker',
          include: DOCKER,
          exclude: IGNORED,
          fileParallelism: false,
          globalSetup: ['test/global-setup.ts'],
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
