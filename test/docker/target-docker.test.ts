import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNodeImage } from '../../cluster/docker/ensure-image.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import type { StoredTestJson } from '../../store/test-json.ts';
import { dryRun } from '../../harness/target-dry-run.ts';
import { COMMAND_LOG_FILE } from '../../harness/target-session.ts';
import { CommandLog } from '../../target/command-log.ts';
import { killLeftovers, testResultsDir } from '../integration/processes.ts';
import type { OwnerDeployment } from '../support/owner-deployment.ts';
import { engineForTests } from './engine-for-tests.ts';
import { scriptedRun, type Script, type ScriptedRun } from '../support/scripted-run.ts';
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

  async function redisView(): Promise<{ underPrefix: string[]; planted: string | null }> {
    const r = owner.redisAdmin();
    try {
      return { underPrefix: await r.keys('fp-dock/*'), planted: await r.get('fp-dock-outside') };
    } finally {
      r.disconnect();
    }
  }

  /** A scripted run against the target, kept under the file's results folder, with its test record. */
  async function scripted(script: Script, argv: string[]): Promise<ScriptedRun & { test: StoredTestJson }> {
    const r = await scriptedRun(script, argv, { results });
    const test = JSON.parse(fs.readFileSync(path.join(r.outcome.runDir, 'test.json'), 'utf8')) as StoredTestJson;
    return { ...r, test };
  }

  it('redis × pause-holder → INVALID; etcd --fencing × pause-holder → VALID with stale writes rejected', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    // Scripted (scenarios/paused-holder.json): the paused holder's stale write erases B's every time, or, fenced,
    // is refused by the resource every time.
    const redis = await scripted({ shipped: 'paused-holder' }, ['--lock=redis', `--target=${file}`]);
    expect(redis.record.followed, redis.summary).toBe(true);
    expect(redis.outcome.exitCode, redis.summary).toBe(EXIT.invalid);
    expect(redis.test.target?.keysLeft).toBe(0);
    const etcd = await scripted({ shipped: 'paused-holder' }, ['--lock=etcd', '--fencing', `--target=${file}`]);
    expect(etcd.record.followed, etcd.summary).toBe(true);
    expect(etcd.outcome.exitCode, etcd.summary).toBe(EXIT.valid);
    expect(etcd.outcome.results.staleWritesRejected).toBeGreaterThan(0);
    expect(await redisView()).toEqual({ underPrefix: [], planted: 'planted' });
  });

  it('pause-node and restart-empty through the docker adapter hit, with the engine’s evidence; --dry-run = executed', async () => {
    const file = owner.targetFile({ adapter: 'owner', faults: ['pause-node', 'restart-empty'] });
    const argv = ['--lock=redis', `--target=${file}`];
    const planned = await dryRun(
      resolveConfig([...argv, '--nemesis=pause-node,restart-empty', '--dry-run', `--results=${results}`]),
    );
    // Scripted, each step gated on the history (no shot left to land by chance): the container paused and unpaused,
    // then restart-empty's story (scenarios/restart-empty.json) — its step ends once the node answers again, empty.
    const { outcome, record, summary } = await scripted(
      {
        name: 'pause-node-then-restart-empty',
        steps: [
          ...['pause-node', 'heal pause-node'],
          ...['A acquire', 'A read', 'restart-empty A', 'B acquire', 'B read', 'A write', 'B write'],
          ...['A release', 'B release'],
        ],
      },
      argv,
    );
    expect(record.followed, summary).toBe(true);
    // One Redis: restarted empty under A, it grants B the same lock, and B's write erases A's.
    expect(outcome.results.lostUpdates, summary).toBeGreaterThan(0);
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
