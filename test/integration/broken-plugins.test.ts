import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistory, validateHistory } from '../../history/reader.ts';
import { processesUnder, testResultsDir, killLeftovers } from './processes.ts';
import { startCli } from '../support/cli-run.ts';
import { freeRunUntil } from '../support/free-run-until.ts';
import { clientExitOf } from '../../history/client-exit.ts';
import type { Op } from '../../history/op.ts';

/**
 * Plugins that never make progress, or whose "monotonic" token is not, run through the real CLI against the
 * real servers. A run that wrote nothing must not be VALID; a lock that breaks its token promise is INVALID.
 */
const results = testResultsDir('broken-plugins');
// A run that never makes progress is unknown from its first op on: its time limit only has to start, which it does once
// every client has put an op in the history (harness/clients-running.ts). 5 s before.
const TIME_LIMIT_S = 1;
const TTL_MS = 100;
// The client's step timeout (acquire timeout 3 × TTL + 1 s, plus 2 s) bounds how long a stuck step can hold
// the end of the run up; boot and teardown of Postgres add their own seconds on a shared 2-core machine.
const STEP_TIMEOUT_S = (3 * TTL_MS + 1000 + 2000) / 1000;

afterAll(() => {
  expect(killLeftovers(results)).toEqual([]);
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  /** The run folder it printed. */
  runDir: () => string;
}

async function cli(args: string[]): Promise<Exit> {
  const t0 = performance.now();
  const run = startCli(args, { results });
  const r = await run.exit;
  return { ...r, seconds: (performance.now() - t0) / 1000, runDir: () => run.runDir() };
}

const plugin = (name: string) => `--lock=./test/fixtures/plugins/${name}.ts`;
const firstLine = (stdout: string) =>
  stdout
    .split('\n')
    .find((l) => l.trim() !== '')!
    .trim();

/** What every run that made no progress shows: exit 2, the reason first, on file, in the report, a valid history. */
function expectNoProgress(
  r: Exit,
  reason: RegExp,
): { saved: Record<string, unknown> & { durationMs: number }; ops: Op[] } {
  expect(r.code, r.stderr).toBe(2);
  expect(firstLine(r.stdout)).toMatch(reason);
  const dir = r.runDir();
  const saved = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
  expect(saved.valid).toBe('unknown');
  expect(saved.unknownReasons[0]).toMatch(/^no progress: 0 writes committed/);
  expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('no progress: 0 writes committed');
  const { ops } = readHistory(path.join(dir, 'history.jsonl'));
  expect(validateHistory(ops)).toEqual([]);
  return { saved, ops: ops as Op[] };
}

describe('plugins that make no progress end unknown (exit 2), saying why', () => {
  it.each([
    ['never-settles', /^UNKNOWN {2}no progress: 0 writes committed; \d+ acquires? timed out/],
    [
      'connect-throws',
      /^UNKNOWN {2}no progress: 0 writes committed; \d+ connects? failed \(last: connect-throws fixture: cannot reach the lock service\)/,
    ],
  ])('%s', async (name, reason) => {
    const r = await cli([
      plugin(name),
      '--nemesis=none',
      `--time-limit=${TIME_LIMIT_S}`,
      `--ttl=${TTL_MS}`,
      '--concurrency=2',
      '--seed=3',
    ]);
    const { saved } = expectNoProgress(r, reason);
    // The clients' part of the run (first to last op) ends within the limit plus one step timeout.
    expect(saved.durationMs / 1000).toBeLessThan(TIME_LIMIT_S + STEP_TIMEOUT_S + 1);
    console.log(
      `${name}: exit ${r.code} after ${r.seconds.toFixed(1)} s wall, ${(saved.durationMs / 1000).toFixed(1)} s of history`,
    );
    expect(processesUnder(results)).toEqual([]);
  });

  // One run for what were two tests of this plugin (its exits named first; its slots giving up): with 15 s, a slot
  // that restarts slowly (1–4 s on a busy machine) could reach the limit before its fifth death, so both ran to
  // the give-up anyway, booting the same servers twice.
  it('exits-in-acquire: restarted under new process ids until every slot gives up; the run says so and ends long before its time limit', async () => {
    const r = await cli([
      plugin('exits-in-acquire'),
      '--nemesis=none',
      '--time-limit=120',
      `--ttl=${TTL_MS}`,
      '--concurrency=2',
      '--seed=3',
    ]);
    // The first line names the exits (what stopped progress); the next says every slot gave up.
    const { saved, ops } = expectNoProgress(
      r,
      /^UNKNOWN {2}no progress: 0 writes committed; 10 client process exits; last: client \d exited with code 7: exits-in-acquire fixture: exiting mid-acquire/,
    );
    expect(r.stdout).toMatch(/also: clients kept dying; 2 of 2 client slot\(s\) gave up/);
    expect(r.stderr).toMatch(/every client died 5 times; ending the run early/);
    expect(saved.progress).toMatchObject({ clientExits: 10, slotsGaveUp: 2 });
    const exits = ops.filter((o) => o.error === 'client-exited');
    expect(exits.length).toBeGreaterThan(1);
    expect(exits[0].value).toMatchObject({
      exit: { code: 7, lastLines: expect.arrayContaining(['exits-in-acquire fixture: exiting mid-acquire']) },
    });
    // Restarted under new process ids: slot 0 as 0, 2, 4, … with --concurrency=2.
    const slot0 = [
      ...new Set(ops.filter((o) => typeof o.process === 'number' && o.process % 2 === 0).map((o) => o.process)),
    ];
    expect(slot0.length).toBeGreaterThan(1);
    console.log(
      `exits-in-acquire, --time-limit=120: exit ${r.code} after ${r.seconds.toFixed(1)} s wall, ${(saved.durationMs / 1000).toFixed(1)} s of history`,
    );
    expect(r.seconds).toBeLessThan(60);
    expect(processesUnder(results)).toEqual([]);
  });
});

describe('a lock library that ends its client process on purpose (LockStrategy.libraryCrash)', () => {
  it("is recorded as the library's: named in the exits, the write it never sent a fail lock-lost, no slot given up", async () => {
    // More deaths than a slot may have of its own (5), and at least one of them while the client thought: the run
    // ends once its history shows both, not after a time limit long enough that it probably does (30 s was, since
    // each crash costs a client process's restart: 1–4 s on a busy 2-core machine). The fixture's crash comes 20 ms
    // after the acquire: on a busy machine the read may not have returned yet (CI: 7 of 9 crashes while thinking),
    // and then there is no write to record.
    const crashes = (ops: readonly Op[]) => ops.filter((o) => clientExitOf(o)?.libraryCrash).length;
    const lockLostOf = (ops: readonly Op[]) =>
      ops.filter((o) => o.f === 'write' && o.type === 'fail' && o.error === 'lock-lost');
    const run = await freeRunUntil(
      [
        plugin('library-crash'),
        '--nemesis=none',
        '--ttl=500',
        '--think=200',
        '--concurrency=1',
        '--min-writes=0',
        '--seed=3',
        `--results=${results}`,
      ],
      'more than 5 library crashes, one of them while the client thought',
      (ops) => crashes(ops) > 5 && lockLostOf(ops).length > 0,
      120_000,
    );
    const log = run.log.join('\n');
    expect(run.missed, log).toBeNull();
    const { progress } = run.outcome.results;
    // Every crash the history shows is the library's, and the slot was never given up for them.
    expect(progress?.libraryCrashes?.FixtureLostLockError, log).toBeGreaterThan(5);
    expect(progress?.slotsGaveUp).toBe(0);
    expect(log).toMatch(/its lock library ended it \(FixtureLostLockError: lost account-0 on purpose\)/);
    expect(log).toMatch(/the lock library ended its client process: FixtureLostLockError ×\d+/);
    // A crash while the client thought leaves its write on record as never sent, because the lock was lost. What must
    // never happen is a section whose read returned and whose write is nowhere: no process of a crashed generation
    // ends on its read.
    const { ops } = run;
    const lockLost = lockLostOf(ops);
    expect(lockLost.length).toBeGreaterThan(0);
    expect(lockLost.length).toBeLessThanOrEqual(progress!.libraryCrashes!.FixtureLostLockError);
    const lastOp = new Map(ops.filter((o) => o.process !== 'nemesis').map((o) => [o.process, o]));
    const live = Math.max(...[...lastOp.keys()].map(Number));
    const endedOnRead = [...lastOp.values()].filter((o) => o.process !== live && o.f === 'read' && o.type === 'ok');
    expect(endedOnRead).toEqual([]);
    expect(validateHistory(ops)).toEqual([]);
    console.log(
      `library-crash: exit ${run.outcome.exitCode}, ${progress?.libraryCrashes?.FixtureLostLockError} library crashes, ${progress?.committedWrites} writes committed, 0 slots given up`,
    );
    expect(processesUnder(results)).toEqual([]);
  });
});

describe('token promises', () => {
  it("a 'monotonic' token that does not grow from one holder to the next is INVALID, naming both acquires", async () => {
    // By script (A granted twice, then B once), not a free run's 8 s waiting for the counters to cross: the
    // backwards token is certain at B's first grant.
    const r = await cli(['--scenario=test/fixtures/plugins/client-counter-token.scenario.json', '--seed=5']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/checker token-order +INVALID/);
    expect(r.stdout).toMatch(
      /token: account 0: p\d+ acquire #\d+ token \d+ was invoked after p\d+ acquire #\d+ token \d+ had been granted, yet its token is (smaller|equal)/,
    );
    const saved = JSON.parse(fs.readFileSync(path.join(r.runDir(), 'results.json'), 'utf8'));
    expect(saved.valid).toBe(false);
    const backwards = saved.checkers['token-order'].violations.filter((v: { kind: string }) => v.kind === 'backwards');
    expect(backwards.length).toBeGreaterThan(0);
    const v = backwards[0];
    expect(BigInt(v.later.token) < BigInt(v.earlier.token)).toBe(true);
    expect(v.earlier.process).not.toBe(v.later.process);
  });

  it("a plugin declaring token 'version' is refused (254) before anything starts", async () => {
    const r = await cli([plugin('declares-version'), '--time-limit=1']);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/token: 'version'.*reserved for the built-in postgres strategy/);
  });
});
