import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesUnder, recordedProcessesUnder, testResultsDir } from './processes.ts';
import { dataElsewhereOf } from '../../cluster/server-node.ts';
import { runCli, startCli, type CliExit } from '../support/cli-run.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Run the CLI as a user would and send `signal` once `when` holds — a line of its output matches, or a state of its
 * results folder is reached — and the run's pid files (under `results`) name a live process; `recordedAtSignal` is
 * how many they named then, so "none left" means something.
 */
async function signalledAt(
  args: string[],
  when: RegExp | ((results: string) => boolean),
  signal: NodeJS.Signals,
  results: string,
): Promise<CliExit & { recordedAtSignal: number }> {
  const run = startCli(args, { results });
  if (when instanceof RegExp) await run.line(when);
  else await eventually('the run in the state to signal it in', () => when(results) || !run.running, 120_000);
  const recorded = () => recordedProcessesUnder(results).length;
  await eventually("a live process in the run's pid files", () => recorded() > 0 || !run.running, 60_000).catch(
    () => {},
  );
  const recordedAtSignal = recorded();
  run.signal(signal);
  return { ...(await run.exit), recordedAtSignal };
}

/** Whether a run under `results` has a committed write in its history so far. */
function committedWrite(results: string): boolean {
  const runs = path.join(results, 'redis');
  return (fs.existsSync(runs) ? fs.readdirSync(runs) : []).some((run) => {
    const history = path.join(runs, run, 'history.jsonl');
    return fs.existsSync(history) && fs.readFileSync(history, 'utf8').includes('"type":"ok","f":"write"');
  });
}

/** What each verdict prints and exits with (docs/cli.md): the CLI's contract, as literal data. */
const VERDICTS = new Map<unknown, [string, number]>([
  [true, ['VALID', 0]],
  [false, ['INVALID', 1]],
  ['unknown', ['UNKNOWN', 2]],
]);

describe('CLI', () => {
  it.each([
    [['--lock=nope'], /unknown lock "nope"\. Valid: none, redis, redlock/],
    [['--time-limit=-3'], /--time-limit must be between 1 and 86400/],
    [['--lock=redis', '--fencing'], /no monotonic counter|not a monotonic counter/],
    // A fault that cannot act on the lock's servers would inject nothing: refused, not skipped into a VALID.
    [
      ['--lock=etcd', '--nemesis=restart-empty'],
      /--nemesis=restart-empty cannot act on --lock=etcd: .*no Redis master/,
    ],
    [['--lock=etcd', '--nemesis=clock'], /--nemesis=clock cannot act on --lock=etcd: .*shim cannot move it/],
    [
      ['--lock=all', '--time-limit=2'],
      /too short for the "holder paused" and fenced columns[\s\S]*--lock=all --time-limit=5/,
    ],
  ])('%j exits 254 with a message, before starting anything', async (args, message) => {
    const results = testResultsDir('cli-bad');
    const r = await runCli(args, { results });
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(message);
    expect(fs.readdirSync(results)).toEqual([]);
  });

  it('--help lists every option with its default and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--ttl=<ms>\s+lock TTL.*\(default: 2000\)/);
  });

  it('doctor --json boots all 13 nodes (pgbouncer too), reports versions and boot time, and leaves nothing running', async () => {
    const results = testResultsDir('cli-doctor');
    const r = await runCli(['doctor', '--json'], { results });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.nodes).toHaveLength(13);
    expect(report.bootMs).toBeGreaterThan(0);
    for (const n of report.nodes) expect(n.version).toMatch(/^\d+\.\d+/);
    expect(processesUnder(results)).toEqual([]);
  });

  it('SIGINT during a doctor boot stops every node: zero of our processes remain', async () => {
    const results = testResultsDir('cli-sigint-doctor');
    const r = await signalledAt(['doctor'], /booting/, 'SIGINT', results);
    expect(r.recordedAtSignal).toBeGreaterThan(0);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/SIGINT — resuming paused processes/);
    expect(processesUnder(results)).toEqual([]);
  });

  // The CLI is the subject: whichever verdict a second's free run earns (the baseline's lost update is certain only by
  // script: workload.test.ts), it goes to stdout and the exit code, and the progress to stderr.
  it('a run prints its verdict on stdout, its progress on stderr, and exits with the verdict', async () => {
    const results = testResultsDir('cli-run');
    const r = await runCli(['--lock=none', '--time-limit=1', '--nemesis=none'], { results });
    const runDir = fs.realpathSync(path.join(results, 'latest'));
    const outcome = JSON.parse(fs.readFileSync(path.join(runDir, 'results.json'), 'utf8'));
    const [word, code] = VERDICTS.get(outcome.valid)!;
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout).toMatch(new RegExp(`^\\s*${word}\\s+--lock=none`));
    expect(r.stdout).toContain(`lost updates: ${outcome.lostUpdates} `);
    // Shown relative to the working directory when under it (test-output/… is).
    expect(r.stdout).toContain(`report:  ${path.relative(process.cwd(), path.join(results, 'none'))}`);
    expect(r.stderr).toMatch(/ 1\/1 s /);
    expect(r.stderr).not.toMatch(/VALID|INVALID|UNKNOWN/);
    expect(processesUnder(results)).toEqual([]);
  });

  it('SIGTERM during a run stops clients and nodes and keeps the history so far', async () => {
    const results = testResultsDir('cli-sigterm-run');
    // Once a client committed a write: its clients are running (not at a progress line, printed every 10 s in a log).
    const r = await signalledAt(
      ['--lock=redis', '--time-limit=60', '--nemesis=none'],
      committedWrite,
      'SIGTERM',
      results,
    );
    expect(r.recordedAtSignal).toBeGreaterThan(0);
    expect(r.code).toBe(130);
    expect(processesUnder(results)).toEqual([]);
    const runs = fs.readdirSync(path.join(results, 'redis'));
    const history = fs
      .readFileSync(path.join(results, 'redis', runs[0], 'history.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(history.length).toBeGreaterThan(0);
    expect(JSON.parse(fs.readFileSync(path.join(results, 'redis', runs[0], 'test.json'), 'utf8')).interrupted).toBe(
      true,
    );
  });

  it('cleanup stops what a kill -9ed run left behind', async () => {
    const results = testResultsDir('cli-cleanup');
    // kill -9 once the servers are spawned (their pid files exist): they are orphans from then on.
    const pidFiles = () => {
      const doctor = path.join(results, 'doctor');
      if (!fs.existsSync(doctor)) return 0;
      return fs
        .readdirSync(doctor)
        .reduce(
          (n, run) =>
            n +
            (fs.existsSync(path.join(doctor, run, 'pids')) ? fs.readdirSync(path.join(doctor, run, 'pids')).length : 0),
          0,
        );
    };
    const doctor = startCli(['doctor'], { results });
    await eventually('10 pid files of the servers', () => pidFiles() >= 10, 120_000);
    doctor.signal('SIGKILL');
    await doctor.exit;
    // By its pid files, not its folder: under a 0700 checkout the servers' homes are in the OS temp folder.
    expect(recordedProcessesUnder(results).length).toBeGreaterThan(0);
    const cleanup = startCli(['cleanup'], { results });
    const r = await cleanup.exit;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/stopped \d+ leftover process/);
    // cleanup SIGKILLed them; the kernel reaps them a moment later.
    expect(await cleanup.leftoversOnceReaped()).toEqual([]);
    // The data stays until `cleanup --data`, Postgres's too wherever it lives (in memory, /dev/shm, when there is
    // room: 40 MB of RAM per run left behind until then).
    const [run] = fs.readdirSync(path.join(results, 'doctor'));
    const pgData = dataElsewhereOf(path.join(results, 'doctor', run, 'nodes', 'pg'));
    if (pgData) expect(fs.existsSync(pgData)).toBe(true);
    const d = await runCli(['cleanup', '--data'], { results });
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/removed the node data of .* \(\d+(\.\d+)? MB\)/);
    expect(fs.existsSync(path.join(results, 'doctor', run, 'nodes'))).toBe(false);
    if (pgData) expect(fs.existsSync(pgData)).toBe(false);
  });
});
