import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../common/pid-registry.ts';
import { starts } from '../../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';
import { testResultsDir } from '../../test/integration/processes.ts';

/**
 * kazoo's Lock started through a wrapper that does not exec — the manifest commands users write (`sh -c "…; exit $?"`,
 * `go run`, `poetry run`): the real lock client, with its ZooKeeper session and heartbeat thread, is the wrapper's
 * child. A pause that stopped only the wrapper's pid left the session alive: VALID, 0 lost, "hit 4/4" (the
 * 2026-12-04 audit, N1), where the direct command is INVALID. Every process of the tree must stop in every shot, and
 * nothing of it — a helper daemon the wrapper forked included — may outlive the run.
 *
 * By script (scenarios/paused-holder.json, the script of pause-holder.servers.test.ts's verdicts): A is paused after
 * its read until its lease ran out and B wrote, so the one shot lands in A's section every time; as a 20 s free run the
 * test took whatever shots the schedule landed.
 */
const work = testResultsDir('kazoo-wrapped');
const python = path.resolve('locks/python');
const helpers = path.join(work, 'helpers');

afterAll(() => {
  // A failing test must not leave its helpers: killed here by the pids they wrote, which the test asserts are gone.
  for (const pid of helperPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function helperPids(): number[] {
  return fs.existsSync(helpers) ? fs.readFileSync(helpers, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

function manifest(name: string, command: string[]): string {
  const file = path.join(work, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      name,
      command,
      cwd: python,
      needs: ['zk'],
      servers: { zk: 3 },
      token: 'monotonic',
      renews: false,
      defaultFaults: ['pause-holder'],
    }),
  );
  return file;
}

const WRAPPERS: [string, string[]][] = [
  ['sh -c', ['/bin/sh', '-c', '/usr/bin/python3 -E -s kazoo_lock.py; exit $?']],
  [
    'a Python wrapper that forks the client and a setsid helper',
    [
      '/usr/bin/python3',
      '-E',
      '-s',
      '-c',
      [
        'import subprocess, sys',
        `h = subprocess.Popen(["setsid", "sleep", "900"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
        `open(${JSON.stringify(helpers)}, "a").write(f"{h.pid}\\n")`,
        'sys.exit(subprocess.call([sys.executable, "-E", "-s", "kazoo_lock.py"]))',
      ].join('\n'),
    ],
  ],
];

describe('kazoo × pause-holder through a wrapper', () => {
  it.each(WRAPPERS)(
    '%s, the paused holder scripted: INVALID like the direct command, every process of the tree stopped in its shot',
    async (name, command) => {
      const lock = manifest(name.replace(/\W+/g, '-'), command);
      const run = await scriptedRun({ shipped: 'paused-holder' }, [`--lock=${lock}`]);
      expect(run.record.followed, run.summary).toBe(true);
      expect(run.outcome.exitCode, run.summary).toBe(1);
      expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
      const shots = starts(run, 'pause-holder');
      expect(shots.length, run.summary).toBeGreaterThan(0);
      for (const s of shots) {
        const p = s.value.params as {
          lockPid: number;
          lockStopped: boolean;
          lockTree: { by: string; pids: number[]; running: number[] };
        };
        // The wrapper and the python client under it at least; none of them running.
        expect(p.lockStopped, JSON.stringify(p)).toBe(true);
        expect(p.lockTree.pids.length, JSON.stringify(p)).toBeGreaterThanOrEqual(2);
        expect(p.lockTree.pids).toContain(p.lockPid);
        expect(p.lockTree.running).toEqual([]);
      }
      const [shot] = run.outcome.results.faultHits['pause-holder'].shots;
      expect(
        shot.story?.map((x) => x.status),
        shot.evidence,
      ).toEqual(['done', 'done', 'done', 'done', 'done']);
      expect(run.leftovers).toEqual([]);
      // Helpers the wrapper forked (setsid: in no process group of ours) died with their tree.
      expect(helperPids().filter(isAlive)).toEqual([]);
      console.log(`${name}: ${run.log.filter((l) => /INVALID|VALID|fault pause-holder/.test(l)).join(' | ')}`);
    },
  );
});
