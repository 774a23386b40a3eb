import { describe, expect, it } from 'vitest';
import type { NemesisValue, WriteValue } from '../../history/bank.ts';
import type { Op } from '../../history/op.ts';
import { runMemoryBank } from './memory-bank.ts';

/** The in-memory bank runs the real client loop: its histories must follow the loop's rules and the lock's. */
describe('runMemoryBank', () => {
  it('is the same for the same seed, and differs for another', async () => {
    const a = await runMemoryBank({ clients: 3, durationMs: 2000, seed: 7 });
    const b = await runMemoryBank({ clients: 3, durationMs: 2000, seed: 7 });
    const c = await runMemoryBank({ clients: 3, durationMs: 2000, seed: 8 });
    expect(b.history).toEqual(a.history);
    expect(c.history).not.toEqual(a.history);
  });

  it('records each client step as invoke then completion, in time order, indexed', async () => {
    const { history } = await runMemoryBank({ clients: 3, durationMs: 2000, seed: 1 });
    history.forEach((op, i) => expect(op.index).toBe(i));
    for (let i = 1; i < history.length; i++) expect(history[i].time).toBeGreaterThanOrEqual(history[i - 1].time);
    const steps = history.filter((o) => o.process === 0).map((o) => `${o.type} ${o.f}`);
    expect(steps.slice(0, 8)).toEqual([
      'invoke acquire',
      'ok acquire',
      'invoke read',
      'ok read',
      'invoke write',
      'ok write',
      'invoke release',
      'ok release',
    ]);
  });

  it('a correct lock never grants a held key: no write is based on a stale read', async () => {
    const { history, brokenGrants } = await runMemoryBank({ clients: 5, durationMs: 3000, seed: 2 });
    expect(brokenGrants).toBe(0);
    const writes = history
      .filter((o) => o.f === 'write' && o.type === 'ok')
      .map((o) => o.value as WriteValue & { writeId: number });
    expect(writes.length).toBeGreaterThan(20);
    writes.forEach((w, i) => expect(w.basedOn).toBe(i === 0 ? 0 : writes[i - 1].writeId));
  });

  it('pause-holder stops the holder between its read and its write for the pause, past the TTL', async () => {
    const { history } = await runMemoryBank({
      clients: 3,
      durationMs: 6000,
      ttlMs: 1000,
      thinkMs: 10,
      seed: 3,
      pause: { atMs: 1000, durationMs: 2000 },
    });
    const [start, end] = history.filter((o) => o.f === 'pause-holder') as Op<NemesisValue>[];
    const p = Number(/client p(\d+)/.exec(start.value.targets[0])![1]);
    const read = history
      .filter((o) => o.process === p && o.f === 'read' && o.type === 'ok' && o.time <= start.time)
      .at(-1)!;
    const write = history.find((o) => o.process === p && o.f === 'write' && o.type === 'invoke' && o.time > read.time)!;
    expect(write.time).toBeGreaterThanOrEqual(end.time);
    // Meanwhile the TTL ran out and another client held the lock and wrote.
    expect(
      history.some(
        (o) => o.process !== p && o.f === 'write' && o.type === 'ok' && o.time > start.time && o.time < end.time,
      ),
    ).toBe(true);
  });
});
