import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../../common/errors.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { runTest, type RunOutcome } from '../../harness/run.ts';
import type { StoredTestJson } from '../../store/test-json.ts';
import { dryRun } from '../../harness/target-dry-run.ts';
import { COMMAND_LOG_FILE } from '../../harness/target-session.ts';
import { CommandLog } from '../../target/command-log.ts';
import { startOwnerDeployment, type OwnerDeployment } from '../support/owner-deployment.ts';
import { scriptedRun, type Script, type ScriptedRun } from '../support/scripted-run.ts';
import { killLeftovers, testResultsDir } from './processes.ts';

/**
 * Against servers the test starts itself (owner-deployment.ts: a Redis and a 3-member etcd, plain processes, each
 * with a login fenced to `fp-test/`): the oracle's cells hold on a target as they do on fencepost's own servers, the
 * server faults act through the exec adapter with the servers' own answers as evidence, the run leaves no key under
 * the prefix and touches nothing outside it, and `--dry-run` lists exactly what the run then executes.
 */
let owner: OwnerDeployment;
let results: string;
const PLANTED = { redis: ['fp-test-outside', 'fp-testx'], etcd: 'owner/planted' };

/** The owner's keys outside the prefix (on Redis again after a test restarted it empty). */
async function replant(): Promise<void> {
  const r = owner.redisAdmin();
  for (const k of PLANTED.redis) await r.set(k, `planted ${k}`);
  r.disconnect();
}

beforeAll(async () => {
  owner = await startOwnerDeployment('fp-test/');
  Object.assign(process.env, owner.env);
  results = testResultsDir('target');
  await replant();
  const e = owner.etcdAdmin();
  await e.put(PLANTED.etcd).value('planted');
  e.close();
});

afterAll(async () => {
  const left = killLeftovers(results);
  await owner?.stop();
  expect(left).toEqual([]);
  fs.rmSync(results, { recursive: true, force: true });
});

/** A scripted run against the target, kept under the file's results folder, with its test record. */
async function scripted(script: Script, argv: string[]): Promise<ScriptedRun & { test: StoredTestJson }> {
  const r = await scriptedRun(script, argv, { results });
  const test = JSON.parse(fs.readFileSync(path.join(r.outcome.runDir, 'test.json'), 'utf8')) as StoredTestJson;
  return { ...r, test };
}

async function run(argv: string[]): Promise<{ outcome: RunOutcome; test: StoredTestJson; log: string[] }> {
  const log: string[] = [];
  const outcome = await runTest(resolveConfig([...argv, `--results=${results}`]), new Shutdown(), (l) => log.push(l));
  const test = JSON.parse(fs.readFileSync(path.join(outcome.runDir, 'test.json'), 'utf8')) as StoredTestJson;
  return { outcome, test, log };
}

/** What the owner sees: keys under the prefix (as admin), and the planted keys outside it. */
async function ownerView(): Promise<{ underPrefix: string[]; planted: (string | null)[] }> {
  const r = owner.redisAdmin();
  const e = owner.etcdAdmin();
  try {
    const redisKeys = await r.keys('fp-test/*');
    const etcdKeys = await e.getAll().prefix('fp-test/').keys();
    const planted = [...(await Promise.all(PLANTED.redis.map((k) => r.get(k)))), await e.get(PLANTED.etcd).string()];
    return { underPrefix: [...redisKeys, ...etcdKeys], planted };
  } finally {
    r.disconnect();
    e.close();
  }
}

const UNTOUCHED = ['planted fp-test-outside', 'planted fp-testx', 'planted'];

describe('the oracle on a target (servers the test started, fencepost only a guest)', () => {
  it('redis × pause-holder → INVALID, and no key is left under the prefix, nothing outside it touched', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    // Scripted (scenarios/paused-holder.json): the paused holder's stale write erases B's every time.
    const { outcome, test, record, summary } = await scripted({ shipped: 'paused-holder' }, [
      '--lock=redis',
      `--target=${file}`,
    ]);
    expect(record.followed, summary).toBe(true);
    expect(outcome.exitCode, summary).toBe(EXIT.invalid);
    expect(outcome.results.lostUpdates).toBeGreaterThan(0);
    expect(test.target).toMatchObject({
      name: 'owner-test',
      keyPrefix: 'fp-test/',
      keysLeft: 0,
      prefixedBy: 'fencepost',
    });
    expect(test.target!.keysRemoved!['r0']).toBeGreaterThanOrEqual(0);
    // The run's keys were its own namespace under the prefix, recorded beside the run before any client started.
    const ns = test.target!.namespace!;
    expect(ns).toMatch(/^fp-test\/run-[0-9a-z]+-[0-9a-f]{6}\/$/);
    const owned = JSON.parse(fs.readFileSync(path.join(outcome.runDir, 'target-keys.json'), 'utf8'));
    expect(owned).toMatchObject({ format: 1, keyPrefix: 'fp-test/', namespace: ns, pid: process.pid });
    expect(owned.keys).toContain(`${ns}lock:account-0`);
    // The fence is proven on each server the run touches: --lock=redis uses the target's one Redis, not its etcd.
    expect(test.target!.fence.map((f) => `${f.server}: ${f.fence}`)).toEqual(['r0: fenced']);
    expect(await ownerView()).toEqual({ underPrefix: [], planted: UNTOUCHED });
  });

  it('etcd --fencing × pause-holder → VALID with stale writes rejected', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    // The same script: the paused holder comes back and its stale write is refused by the resource.
    const { outcome, record, summary } = await scripted({ shipped: 'paused-holder' }, [
      '--lock=etcd',
      '--fencing',
      `--target=${file}`,
    ]);
    expect(record.followed, summary).toBe(true);
    expect(outcome.exitCode, summary).toBe(EXIT.valid);
    expect(outcome.results.staleWritesRejected).toBeGreaterThan(0);
    expect(await ownerView()).toEqual({ underPrefix: [], planted: UNTOUCHED });
  });
});

describe('server faults through the exec adapter', () => {
  it('pause-node and restart-empty hit, their evidence from the adapter and the servers; --dry-run listed exactly what ran', async () => {
    const file = owner.targetFile({ adapter: 'owner', faults: ['pause-node', 'restart-empty'] });
    const argv = ['--lock=redis', `--target=${file}`];
    const planned = await dryRun(
      resolveConfig([...argv, '--nemesis=pause-node,restart-empty', '--dry-run', `--results=${results}`]),
    );
    // Scripted, each step gated on the history (no shot left to land by chance): the server paused and resumed, then
    // restart-empty's story (scenarios/restart-empty.json) — its step ends once the node answers again, empty.
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
      /through exec adapter "owner" \(evidence from the adapter: `.*pause\.sh r0`, pid \d+; the server stopped answering/,
    );
    expect(shots('restart-empty')).toContain('evidence from exec adapter "owner"');
    const start = outcome.results.faults.find((f) => f.f === 'restart-empty' && f.params?.evidenceFrom)!;
    expect(start.params).toMatchObject({ unreachable: true, killed: ['r0'] });
    const executed = CommandLog.read(path.join(outcome.runDir, COMMAND_LOG_FILE));
    expect(executed.every((c) => c.ok && c.by === 'harness')).toBe(true);
    expect([...new Set(executed.map((c) => c.command))].sort()).toEqual([...planned.commands].sort());
    // Nothing under the prefix is left. The owner's Redis keeps no persistence (save "", appendonly no): its own
    // kill/start restarted it empty, and the keys planted on it went with the restart (docs/targets.md says so);
    // fencepost itself deleted nothing outside the prefix — etcd's planted key, on a server no fault restarted, stays.
    expect(await ownerView()).toEqual({ underPrefix: [], planted: [null, null, 'planted'] });
    await replant();
  });

  it('the same faults with no adapter are refused (254) naming what is missing, before anything starts', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    const runDirs = () =>
      fs.existsSync(path.join(results, 'redis')) ? fs.readdirSync(path.join(results, 'redis')) : [];
    const before = runDirs();
    for (const f of ['pause-node', 'restart-empty']) {
      const err = await run(['--lock=redis', `--target=${file}`, `--nemesis=${f}`, '--time-limit=5']).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(HarnessError);
      expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
      expect((err as HarnessError).message).toContain(`${f} acts on the target's servers`);
      expect((err as HarnessError).hint).toContain(`"serverFaults": { "${f}": "<adapter>" }`);
    }
    // Nothing half-started: no run folder, so no server, client or key.
    expect(runDirs()).toEqual(before);
  });
});
