import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNodeImage } from '../../cluster/docker/ensure-image.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { runTest, type RunOutcome } from '../../harness/run.ts';
import type { StoredTestJson } from '../../store/test-json.ts';
import { dryRun } from '../../harness/target-dry-run.ts';
import { COMMAND_LOG_FILE } from '../../harness/target-session.ts';
import { CommandLog } from '../../target/command-log.ts';
import { killLeftovers, testResultsDir } from '../integration/processes.ts';
import type { OwnerDeployment } from '../support/owner-deployment.ts';
import { engineForTests } from './engine-for-tests.ts';
import { startOwnerContainers } from './owner-containers.ts';

const docker = await engineForTests('target tests in containers');

/**
 * The target tests of test/integration/target-run.test.ts with the owner's servers in Docker containers, and the
 * server faults through the docker adapter (pause/kill/start the named container through the engine's API).
 */
describe.skipIf(!docker)('a target in Docker containers', () => {
  let owner: OwnerDeployment;
  let results: string;

  beforeAll(async () => {
    const image = await ensureNodeImage(docker!, (l) => console.log(l));
    owner = await startOwnerContainers(docker!, image.tag, 'fp-dock/');
    Object.assign(process.env, owner.env);
    results = testResultsDir('target-docker');
    const r = owner.redisAdmin();
    await r.set('fp-dock-outside', 'planted');
    r.disconnect();
  }, 600_000);

  afterAll(async () => {
    const left = results ? killLeftovers(results) : [];
    await owner?.stop();
    if (results) fs.rmSync(results, { recursive: true, force: true });
    expect(left).toEqual([]);
  });

  async function run(argv: string[]): Promise<{ outcome: RunOutcome; test: StoredTestJson }> {
    const outcome = await runTest(resolveConfig([...argv, `--results=${results}`]), new Shutdown(), () => {});
    return {
      outcome,
      test: JSON.parse(fs.readFileSync(path.join(outcome.runDir, 'test.json'), 'utf8')) as StoredTestJson,
    };
  }

  async function redisView(): Promise<{ underPrefix: string[]; planted: string | null }> {
    const r = owner.redisAdmin();
    try {
      return { underPrefix: await r.keys('fp-dock/*'), planted: await r.get('fp-dock-outside') };
    } finally {
      r.disconnect();
    }
  }

  it('redis × pause-holder → INVALID; etcd --fencing × pause-holder → VALID with stale writes rejected', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    const redis = await run(['--lock=redis', `--target=${file}`, '--nemesis=pause-holder', '--time-limit=8']);
    expect(redis.outcome.exitCode, redis.outcome.results.unknownReasons.join('; ')).toBe(EXIT.invalid);
    expect(redis.test.target?.keysLeft).toBe(0);
    const etcd = await run([
      '--lock=etcd',
      '--fencing',
      `--target=${file}`,
      '--nemesis=pause-holder',
      '--time-limit=10',
    ]);
    expect(etcd.outcome.exitCode, etcd.outcome.results.unknownReasons.join('; ')).toBe(EXIT.valid);
    expect(etcd.outcome.results.staleWritesRejected).toBeGreaterThan(0);
    expect(await redisView()).toEqual({ underPrefix: [], planted: 'planted' });
  });

  it('pause-node and restart-empty through the docker adapter hit, with the engine’s evidence; --dry-run = executed', async () => {
    const file = owner.targetFile({ adapter: 'owner', faults: ['pause-node', 'restart-empty'] });
    const argv = [
      '--lock=redis',
      `--target=${file}`,
      '--nemesis=pause-node,restart-empty',
      // restart-empty's story needs the node back before the holder's write: a section wider than a restart on a
      // busy machine (CI under load: 0.6 s, against the default 800 ms section less the kill's own time).
      '--think=1500',
      '--time-limit=16',
      '--nemesis-interval=1000',
    ];
    const planned = await dryRun(resolveConfig([...argv, '--dry-run', `--results=${results}`]));
    const { outcome } = await run(argv);
    const hits = outcome.results.faultHits;
    const shots = (f: string) => hits[f].shots.map((s) => s.evidence).join('\n');
    expect(hits['pause-node'].hit, shots('pause-node')).toBeGreaterThan(0);
    expect(hits['restart-empty'].hit, shots('restart-empty')).toBeGreaterThan(0);
    expect(shots('pause-node')).toMatch(
      /through docker adapter "owner" \(evidence from the adapter: `docker pause .*-r0`, pid \d+/,
    );
    const pause = outcome.results.faults.find((f) => f.f === 'pause-node')!;
    expect(pause.params?.adapter).toMatchObject({
      acted: true,
      answered: false,
      detail: { paused: true, running: true },
    });
    const executed = CommandLog.read(path.join(outcome.runDir, COMMAND_LOG_FILE));
    expect([...new Set(executed.map((c) => c.command))].sort()).toEqual([...planned.commands].sort());
    // Nothing under the prefix is left. The owner's key outside it is unchanged, or gone with the restart of a Redis
    // whose snapshot had not caught it (its own container restart, not a deletion of ours: docs/targets.md says so).
    const view = await redisView();
    expect(view.underPrefix).toEqual([]);
    expect([null, 'planted']).toContain(view.planted);
  });
});
