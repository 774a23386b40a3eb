import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../history/journal.ts';
import { watchdogProcess } from '../history/process-role.ts';
import { clientsRunning } from './clients-running.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journal(): Journal {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-running-'));
  dirs.push(dir);
  return new Journal(path.join(dir, 'history.jsonl'), 0n);
}

const never = new Promise<void>(() => {});

describe('clientsRunning: the time limit starts once every client began its loop', () => {
  it('resolves when every slot has journaled an op (a restarted slot under its new process id counts for its slot)', async () => {
    const j = journal();
    const running = clientsRunning(j, 3, never, 60_000);
    j.append({ process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } });
    // A watchdog's op and the harness's are not a client beginning its loop.
    j.append({ process: watchdogProcess(1), type: 'invoke', f: 'renew', value: { account: 0 } });
    j.append({ process: 'harness', type: 'invoke', f: 'final-read', value: { account: 0 } });
    j.append({ process: 4, type: 'invoke', f: 'acquire', value: { account: 0 } }); // slot 1, after a restart
    j.append({ process: 2, type: 'invoke', f: 'acquire', value: { account: 0 } });
    const r = await running;
    expect(r.silent).toEqual([]);
    expect(r.waitedMs).toBeLessThan(60_000);
  });

  it('gives up after maxMs, or when every client gave up, naming the slots that never began', async () => {
    const j = journal();
    const late = clientsRunning(j, 2, never, 20);
    j.append({ process: 1, type: 'invoke', f: 'acquire', value: { account: 0 } });
    expect((await late).silent).toEqual([0]);
    const gaveUp = await clientsRunning(journal(), 2, Promise.resolve(), 60_000);
    expect(gaveUp.silent).toEqual([0, 1]);
  });
});
