import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../history/journal.ts';
import { CriticalSections } from './critical-sections.ts';

let dir: string;
let journal: Journal;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-sections-'));
  journal = new Journal(path.join(dir, 'history.jsonl'));
});
afterEach(() => {
  journal.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('critical sections', () => {
  it('hands the next read ok to the callback synchronously, inside the append that journals it', async () => {
    const sections = new CriticalSections(journal, 5, true);
    const seen: string[] = [];
    const next = sections.next(
      new AbortController().signal,
      1000,
      () => true,
      (s) => seen.push(`enter p${s.process} slot ${s.slot}`),
    );
    journal.append({ process: 7, type: 'invoke', f: 'acquire', value: { account: 0 } });
    journal.append({ process: 7, type: 'ok', f: 'acquire', value: { account: 0 } });
    journal.append({ process: 7, type: 'invoke', f: 'read', value: { account: 0 } });
    expect(seen).toEqual([]);
    journal.append({
      process: 7,
      type: 'ok',
      f: 'read',
      value: { account: 0, balance: 1, version: 0, lastWriteId: 0 },
    });
    // Before any await: a SIGSTOP sent here lands while the client still sleeps its think time.
    expect(seen).toEqual(['enter p7 slot 2']);
    const section = await next;
    expect(section).toMatchObject({ process: 7, slot: 2, account: 0, acquireIndex: 1, readIndex: 3 });
    // When the acquire that opened it was sent and granted: the lease began between the two.
    expect(section!.acquireSentTime).toBeLessThanOrEqual(section!.acquireTime!);
    expect(typeof section!.acquireSentTime).toBe('number');
    sections.close();
  });

  it('skips sections the filter refuses and ignores watchdog processes and failed reads', async () => {
    const sections = new CriticalSections(journal, 3, true);
    const next = sections.next(new AbortController().signal, 1000, (s) => s.process !== 1);
    journal.append({ process: 100_001, type: 'ok', f: 'read', value: { account: 0 } });
    journal.append({ process: 1, type: 'ok', f: 'read', value: { account: 0 } });
    journal.append({ process: 2, type: 'fail', f: 'read', value: { account: 0 } });
    journal.append({ process: 2, type: 'ok', f: 'read', value: { account: 4 } });
    expect(await next).toMatchObject({ process: 2, account: 4, acquireIndex: -1 });
    sections.close();
  });

  it('resolves null on abort or timeout, and never calls the callback afterwards', async () => {
    const sections = new CriticalSections(journal, 1, true);
    const abort = new AbortController();
    let called = false;
    const aborted = sections.next(
      abort.signal,
      10_000,
      () => true,
      () => (called = true),
    );
    abort.abort();
    expect(await aborted).toBeNull();
    expect(
      await sections.next(
        new AbortController().signal,
        20,
        () => true,
        () => (called = true),
      ),
    ).toBeNull();
    journal.append({ process: 0, type: 'ok', f: 'read', value: { account: 0 } });
    expect(called).toBe(false);
    sections.close();
  });

  it('refuses to aim in a run whose clients batch their ops (no fault declared needs.liveOps)', () => {
    const sections = new CriticalSections(journal, 2, false);
    expect(() => sections.next(new AbortController().signal, 1000)).toThrow(/must declare needs\.liveOps/);
    sections.close();
  });
});
