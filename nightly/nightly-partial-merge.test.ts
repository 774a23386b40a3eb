import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../cli/command-line.ts';
import { Shutdown } from '../common/shutdown.ts';
import { nightlyCommand } from './nightly.ts';
import type { NightlyResult } from './nightly-result.ts';

// Audit R10: the emitted night's merge waited for every shard's file, so one shard that never wrote kept it polling
// for 12 h and no merge ran. `nightly merge --partial` merges what there is and names the missing shards.

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-partial-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function shard(index: number, count: number, lock: string): string {
  const dir = path.join(root, `shard-${index - 1}`);
  fs.mkdirSync(dir, { recursive: true });
  const result: NightlyResult = {
    version: 1,
    seed: 7,
    shard: { index, count },
    settings: ['--time-limit=10', '--stop-on-lost-update'],
    command: `fencepost nightly --time-limit=10 --stop-on-lost-update --seed=7 --shard=${index}/${count}`,
    startedAt: '2026-12-06T01:00:00.000Z',
    wallMs: 60_000,
    expectationsFile: null,
    cells: [
      {
        lock,
        fault: 'none',
        fencing: false,
        runDir: '',
        expected: 'safe',
        observed: 'safe',
        matched: true,
        lostUpdates: 0,
        staleWritesRejected: 0,
        acquireP50: 1,
        acquireP99: 2,
        decided: 'measured',
        table: 'faults',
        index: index - 1,
        from: 'oracle',
      },
    ],
  };
  fs.writeFileSync(path.join(dir, `nightly.shard-${index}-of-${count}.json`), JSON.stringify(result));
  return dir;
}

async function merge(args: string[]) {
  const lines: string[] = [];
  const out = path.join(root, 'merged');
  const code = await nightlyCommand(
    parseCommandLine(['nightly', 'merge', ...args, `--results=${out}`]),
    new Shutdown(),
    (l) => lines.push(l),
  ).catch((e: Error & { exitCode: number }) => `${e.exitCode} ${e.message}`);
  return { code, lines, out };
}

describe('nightly merge --partial: what there is, naming the shards that left nothing', () => {
  const dirs = [shard(1, 3, 'redis'), path.join(root, 'shard-1'), shard(3, 3, 'etcd')];

  it('without --partial a missing shard is still refused (254)', async () => {
    expect((await merge(dirs)).code).toBe(`254 ${path.join(root, 'shard-1')}: no such folder.`);
  });

  it('with it: both cells merged, shard 2/3 named in the log, nightly.json, summary and JUnit; exit 2, never 0', async () => {
    const { code, lines, out } = await merge([...dirs, '--partial']);
    expect(code).toBe(2);
    expect(lines).toContain(
      'nightly merge: shard 2/3 left no result: their measured cells did not run, so the night cannot pass.',
    );
    const night = JSON.parse(fs.readFileSync(path.join(out, 'nightly.json'), 'utf8')) as NightlyResult;
    expect(night.cells.map((c) => c.lock)).toEqual(['redis', 'etcd']);
    expect(night.missingShards).toEqual(['2/3']);
    const summary = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('(exit 2)');
    expect(summary).toContain('**Shard 2/3 left no result**: the measured cells it held did not run');
    const junit = fs.readFileSync(path.join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuites name="fencepost nightly" tests="3" failures="0" errors="1"');
    expect(junit).toContain('type="missing-shard">shard 2/3 left no result');
  });

  it('with it and every shard there: exit 0, no missingShards', async () => {
    const all = [dirs[0], shard(2, 3, 'postgres'), dirs[2]];
    const { code, out } = await merge([...all, '--partial']);
    expect(code).toBe(0);
    const night = JSON.parse(fs.readFileSync(path.join(out, 'nightly.json'), 'utf8')) as NightlyResult;
    expect(night.missingShards).toBeUndefined();
    fs.rmSync(all[1], { recursive: true });
  });

  it('with it and no shard there: refused (254), naming the folders', async () => {
    const none = [path.join(root, 'empty-a'), path.join(root, 'empty-b')];
    expect((await merge([...none, '--partial'])).code).toBe(
      `254 nightly merge --partial: no shard left a result in ${none.join(', ')}.`,
    );
  });
});
