import { describe, expect, it } from 'vitest';
import { REQUIREMENTS } from '../cluster/provision.ts';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

/**
 * `--redis-server=valkey`: the redis row on valkey-server (Debian's, from bookworm-backports; .ci/run installs it)
 * shows what it shows on redis-server — a paused holder's stale write loses an update, no fault loses none — and
 * the test record names the server that answered. Skipped only where valkey-server is not installed (never in CI,
 * whose skips must be listed in .ci/allowed-skips.json).
 */
describe.skipIf(!REQUIREMENTS.valkey.present())('--lock=redis --redis-server=valkey', () => {
  it('--nemesis=pause-holder: the resumed holder erases another client’s write (INVALID, exit 1)', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--redis-server=valkey',
      '--nemesis=pause-holder',
      '--time-limit=10',
      '--stop-on-lost-update',
    ]);
    expect(starts(run, 'pause-holder').length, run.summary).toBeGreaterThan(0);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    expect(run.test.config.redisServer).toBe('valkey');
    // Valkey's own version (8.x), not the redis_version 7.2.4 it reports for clients, and no redis-server at all.
    expect(run.test.versions['valkey-server']).toMatch(/^[89]\.\d+\.\d+$/);
    expect(run.test.versions).not.toHaveProperty('redis-server');
    expect(run.leftovers).toEqual([]);
  });

  it('--nemesis=none: no lost update (VALID, exit 0), on valkey-server', async () => {
    const run = await runNemesis(['--lock=redis', '--redis-server=valkey', '--nemesis=none', '--time-limit=5']);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.test.versions['valkey-server']).toMatch(/^[89]\.\d+\.\d+$/);
    expect(run.leftovers).toEqual([]);
  });
});
