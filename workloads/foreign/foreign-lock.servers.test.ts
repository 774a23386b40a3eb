import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, stillOurs, type PidRecord } from '../../common/pid-registry.ts';
import { readHistory } from '../../history/reader.ts';
import { processesUnder, testResultsDir, killLeftovers } from '../../test/integration/processes.ts';
import { startCli, type CliExit, type CliRun } from '../../test/support/cli-run.ts';
import { eventually } from '../../test/support/eventually.ts';

/**
 * A lock in another language through the real CLI against real servers: redis-py's Lock (examples/python-redis-lock)
 * loses updates when its holder — the Node client and its Python process together — is paused past the TTL, keeps
 * them with no fault, and no Python process outlives a run, whether it ends or is interrupted. The two verdicts are
 * scripted (`--scenario`), so each holds every time; the interrupt is a free run, its subject.
 */
const results = testResultsDir('foreign-lock');
const LOCK = '--lock=./examples/python-redis-lock.json';

/**
 * No fault, by script: A takes the lock, writes and releases; B takes it and reads, A only tries it (kept out within
 * half B's lease: the lock excludes), and B writes — committed writes by two clients, one account.
 */
function noFaultScript(): string {
  const file = path.join(results, 'no-fault.json');
  fs.mkdirSync(results, { recursive: true });
  const steps = ['A acquire', 'A read', 'A write', 'A release', 'B acquire', 'B read', 'try A acquire', 'A read'];
  fs.writeFileSync(
    file,
    JSON.stringify({
      fencepost: 'scenario',
      version: 1,
      name: 'no-fault',
      clients: ['A', 'B'],
      options: {},
      steps: [...steps, 'A write', 'A release', 'B write', 'B release'],
    }),
  );
  return file;
}

afterAll(() => {
  expect(killLeftovers(results)).toEqual([]);
});

/** How often the lock processes' pid records are sampled while a run goes on (a record lives as long as its process). */
const RECORD_SAMPLE_MS = 100;

interface Run {
  run: CliRun;
  done: Promise<CliExit>;
  /** Every lock process the run's pid files named while it ran (client-<n>-lock.json). */
  lockProcesses: Map<string, PidRecord>;
}

function cli(args: string[]): Run {
  const run = startCli([LOCK, ...args], { results });
  const lockProcesses = new Map<string, PidRecord>();
  // The records are read while the run goes on: a run removes them as its lock processes end.
  const watch = (async () => {
    while (run.running) {
      for (const rec of lockRecords()) lockProcesses.set(`${rec.pid}@${rec.startTime}`, rec);
      await sleep(RECORD_SAMPLE_MS);
    }
  })();
  const done = run.exit.then(async (exit) => (await watch, exit));
  return { run, done, lockProcesses };
}

/** The run's first pause-client shot has struck: its start record is in the history. */
function pauseClientStruck(): boolean {
  const lockDir = path.join(results, 'plugin-python-redis-lock_json');
  if (!fs.existsSync(lockDir)) return false;
  return fs.readdirSync(lockDir).some((run) => {
    const file = path.join(lockDir, run, 'history.jsonl');
    if (!fs.existsSync(file)) return false;
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('pause-client'))
      .some((l) => {
        try {
          const o = JSON.parse(l) as { process?: unknown; f?: string; value?: { phase?: string } };
          return o.process === 'nemesis' && o.f === 'pause-client' && o.value?.phase === 'start';
        } catch {
          return false; // the line being written
        }
      });
  });
}

function lockRecords(): PidRecord[] {
  const out: PidRecord[] = [];
  const lockDir = path.join(results, 'plugin-python-redis-lock_json');
  if (!fs.existsSync(lockDir)) return out;
  for (const run of fs.readdirSync(lockDir)) {
    const pids = path.join(lockDir, run, 'pids');
    if (!fs.existsSync(pids)) continue;
    for (const f of fs.readdirSync(pids).filter((n) => /^client-\d+-lock-\d+\.json$/.test(n))) {
      try {
        out.push(JSON.parse(fs.readFileSync(path.join(pids, f), 'utf8')) as PidRecord);
      } catch {
        // being rewritten
      }
    }
  }
  return out;
}

/** A record's process still runs: same pid and start time, and not a zombie (a SIGKILLed child waiting to be reaped). */
const runs = (r: PidRecord) => stillOurs(r) && isAlive(r.pid);
const stillRunning = (recs: Map<string, PidRecord>) => [...recs.values()].filter(runs);

describe('a lock in another language (redis-py Lock over the lock-client protocol)', () => {
  it('pause-holder scripted stops the Python process with its client: INVALID, lost updates, the paused lock process named', async () => {
    const run = cli([`--scenario=${path.resolve('scenarios/paused-holder.json')}`, '--seed=7']);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^\s*INVALID {2}--lock=\.\/examples\/python-redis-lock\.json/);
    const dir = run.run.runDir();
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
    expect(saved.lostUpdates).toBeGreaterThan(0);
    // Which build of the lock ran: the manifest, the interpreter and the script, each hashed, one fingerprint.
    const test = JSON.parse(fs.readFileSync(path.join(dir, 'test.json'), 'utf8'));
    expect(test.foreignLock.manifest.path).toBe(path.resolve('examples/python-redis-lock.json'));
    expect(test.foreignLock.files.map((f: { arg: string }) => f.arg)).toEqual([
      '/usr/bin/python3',
      'python-redis-lock.py',
    ]);
    expect(test.foreignLock.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain(
      `<b>lock build</b>${test.foreignLock.fingerprint}: `,
    );
    const starts = readHistory(path.join(dir, 'history.jsonl')).ops.filter(
      (o) => o.f === 'pause-holder' && (o.value as { phase?: string }).phase === 'start',
    );
    expect(starts.length).toBeGreaterThan(0);
    for (const s of starts) {
      const v = s.value as {
        targets: string[];
        params: { lockPid: number; lockStopped: boolean; lockTree: { pids: number[]; running: number[] } };
      };
      expect(v.targets[0]).toMatch(
        /^client p\d+ \(pid \d+, lock process pid \d+: \/usr\/bin\/python3 python-redis-lock\.py\)$/,
      );
      expect(v.params.lockStopped).toBe(true);
      // Every process of its tree (the Python process alone here: the command starts nothing else).
      expect(v.params.lockTree.pids).toContain(v.params.lockPid);
      expect(v.params.lockTree.running).toEqual([]);
      // The pid it stopped is one of the run's registered lock processes.
      expect([...run.lockProcesses.values()].map((p) => p.pid)).toContain(v.params.lockPid);
    }
    const hit = saved.faultHits['pause-holder'].shots.find((s: { hit: boolean }) => s.hit);
    expect(hit.story[0].evidence).toMatch(/its lock process \(pid \d+\) with it, all \d+ processes of its tree/);
    // One Python process per client of the script (A and B) at least, and none left once the run is over.
    expect(run.lockProcesses.size).toBeGreaterThanOrEqual(2);
    expect(stillRunning(run.lockProcesses)).toEqual([]);
    console.log(`pause-holder: ${r.stdout.split('\n').slice(0, 3).join(' | ')}`);
  });

  it('no fault, scripted: VALID with committed writes by more than one client, a client kept out while another holds, every Python process gone after', async () => {
    const run = cli([`--scenario=${noFaultScript()}`, '--seed=7']);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    const dir = run.run.runDir();
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
    expect(saved.valid).toBe(true);
    expect(saved.lostUpdates).toBe(0);
    const writers = readHistory(path.join(dir, 'history.jsonl'))
      .ops.filter((o) => o.f === 'write' && o.type === 'ok')
      .map((o) => o.process);
    expect(new Set(writers).size, r.stdout).toBe(2);
    const { scenario } = JSON.parse(fs.readFileSync(path.join(dir, 'test.json'), 'utf8'));
    expect(scenario.followed, r.stdout).toBe(true);
    expect(scenario.steps[6], r.stdout).toMatchObject({ text: 'try A acquire', status: 'held' });
    expect(run.lockProcesses.size).toBeGreaterThanOrEqual(2);
    expect(stillRunning(run.lockProcesses)).toEqual([]);
    console.log(`none: ${r.stdout.split('\n').slice(0, 2).join(' | ')}`);
  });

  it('SIGINT mid-run (pause-client running) stops every Python process too, and exits 130', async () => {
    const run = cli(['--nemesis=pause-client', '--nemesis-interval=500', '--time-limit=60', '--seed=7']);
    await eventually('5 lock processes running', () => lockRecords().filter(runs).length >= 5, 60_000).catch(() => {});
    // Past the first pause-client shot, so the interrupt meets a paused client, as the test says.
    await eventually("the first pause-client shot's start record", pauseClientStruck, 60_000);
    const live = lockRecords().filter(runs);
    expect(live.length).toBeGreaterThanOrEqual(5);
    run.run.signal('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(live.filter(runs)).toEqual([]);
    expect(stillRunning(run.lockProcesses)).toEqual([]);
    expect(processesUnder(results)).toEqual([]);
  });
});
