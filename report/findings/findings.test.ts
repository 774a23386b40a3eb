import { describe, expect, it } from 'vitest';
import { checkRun } from '../../checkers/check-run.ts';
import { faultsToDraw } from '../faults-to-draw.ts';
import { pausedHolderHistory } from '../../test/support/paused-holder-history.ts';
import { RunIndex } from '../op-pairs.ts';
import { findings, headline } from './index.ts';

function story(fenced: boolean) {
  const history = pausedHolderHistory({ fenced });
  const results = checkRun(history, { fencing: fenced });
  const found = findings({
    index: new RunIndex(history),
    results,
    faults: faultsToDraw(history, results),
    ttlMs: 2000,
    fencing: fenced,
    lock: fenced ? 'etcd' : 'redis',
  });
  return { results, found, headline: headline(results, found) };
}

describe('findings: a paused holder, unfenced', () => {
  const { found, headline: line } = story(false);

  it('puts the lost update first, naming both writes, and the headline counts it', () => {
    expect(line).toMatch(/^1 lost update/);
    expect(found[0].kind).toBe('lost-update');
    expect(found[0].title).toBe("Lost update on account 0: p1's write #1 (+50) erased by p0's write #2");
  });

  it('tells the lost update from the data: the pause, both holders, who read what and wrote what', () => {
    const [pause, holders, interleaving] = found[0].sentences;
    expect(pause).toBe(
      'p0 was paused for 3,000 ms (pause-holder, 0.005 s → 3.005 s) while holding the lock on account 0 (token 1), longer than the 2,000 ms TTL.',
    );
    expect(holders).toBe(
      'Both believed they held the lock on account 0: p0 since 0.001 s (token 1), p1 since 2.600 s (token 2).',
    );
    expect(interleaving).toBe(
      'p0 read 1000 at 0.003 s. p1 then committed write #1 (1000 → 1050, +50) at 2.703 s. p0 committed write #2 (1000 → 1034) at 3.008 s, ' +
        "computed from its read of 1000 at 0.003 s, before the pause, when the balance was already 1050, so p1's +50 was erased.",
    );
    expect(found[0].writes?.map((w) => [w.role, w.process, w.token, w.writeId])).toEqual([
      ['overwrote', 'p0', '1', 2],
      ['erased', 'p1', '2', 1],
    ]);
  });

  it('tells the pause from the paused process: what it held, who took over, what its write did', () => {
    const pause = found.find((f) => f.kind === 'paused-holder')!;
    // The fault did its job: neutral. The loss it led to is the lost-update finding's (red) to tell.
    expect(pause.severity).toBe('note');
    expect(pause.sentences).toEqual([
      'p0 (pid 4242) was paused for 3,000 ms (0.005 s → 3.005 s) while holding the lock on account 0 (token 1, acquired at 0.001 s), longer than the 2,000 ms TTL, after reading 1000.',
      'Meanwhile the lock was granted to p1 at 2.600 s (token 2).',
      "When it resumed it wrote 1034 (1000 +34) with token 1 (write #2) at 3.008 s, computed from its read from before the pause; 1 other write had committed since that read and the balance was 1050. It erased p1's write #1 (+50).",
    ]);
  });

  it('orders anomalies before context and points each at history indexes', () => {
    const kinds = found.map((f) => f.severity);
    expect(kinds.indexOf('bad')).toBe(0);
    expect(found[0].ops).toEqual(expect.arrayContaining([0, 1, 2, 3, 16, 17, 5, 6, 7, 8, 9, 10]));
  });
});

describe('findings: a paused holder, fenced', () => {
  const { found, headline: line } = story(true);

  it('has no anomaly, says the fence held, and names the paused holder', () => {
    expect(line).toBe('no anomalies; fencing rejected 1 stale write');
    expect(found.some((f) => f.severity === 'bad')).toBe(false);
    const pause = found.find((f) => f.kind === 'paused-holder')!;
    expect(pause.severity).toBe('good');
    expect(pause.sentences[2]).toBe(
      'When it resumed, its write of 1034 (1000 +34) with token 1 was rejected as stale (stale-token) at 3.008 s: the fence held.',
    );
    expect(found.find((f) => f.kind === 'stale-writes')!.title).toBe('Fencing rejected 1 stale write');
  });

  it('checks the final balance against the ledger in its "no anomalies" line', () => {
    expect(found[0].kind).toBe('clean');
    expect(found[0].sentences).toContain('Account 0: final balance 1050 = opening 1000 + the 1 committed delta (+50).');
  });
});

describe('findings: the no-lock baseline', () => {
  it('says there was no lock instead of who held it', () => {
    const history = pausedHolderHistory({ fenced: false });
    const results = checkRun(history, { fencing: false });
    const input = { index: new RunIndex(history), results, faults: [], ttlMs: 2000, fencing: false, lock: 'none' };
    const holders = (noLock: boolean) =>
      findings({ ...input, noLock }).find((f) => f.kind === 'lost-update')!.sentences;
    expect(holders(true)).toContain('There is no lock (--lock=none): nothing kept the two critical sections apart.');
    expect(holders(false).join(' ')).toMatch(/Both believed they held the lock on account 0/);
    expect(holders(false).join(' ')).not.toMatch(/There is no lock/);
  });
});

describe('findings: a fencing violation', () => {
  it('reports the fencing-order checker regressions of a fenced run', () => {
    const history = pausedHolderHistory({ fenced: false });
    const results = checkRun(history, { fencing: true });
    const found = findings({
      index: new RunIndex(history),
      results,
      faults: faultsToDraw(history, results),
      ttlMs: 2000,
      fencing: true,
      lock: 'etcd',
    });
    const v = found.find((f) => f.kind === 'fencing-violation')!;
    expect(v.title).toBe('Fencing violation on account 0: token 1 accepted after token 2');
    expect(v.sentences[0]).toContain(
      "p0's write #2 carried token 1 and committed at 3.008 s, after p1's write #1 with the newer token 2 had been accepted",
    );
    expect(found.find((f) => f.kind === 'lost-update')!.sentences).toContain(
      'The resource accepted token 1 after token 2: fencing did not stop it.',
    );
  });
});

describe('findings: liveness', () => {
  it('a card with the measured recovery and lockout, a note while no --max-stall is set', () => {
    const { found, headline: line } = story(false);
    const card = found.find((f) => f.kind === 'liveness');
    expect(card?.severity).toBe('note');
    expect(card?.title).toMatch(/^Liveness: unavailable up to .* after a fault; no stall/);
    expect(card?.sentences.join(' ')).toMatch(/kept others out for 2\.6 s \(p1 acquired next\)/);
    expect(line).not.toMatch(/liveness/);
  });

  it('past --max-stall the card is an anomaly and the headline names it apart from lost updates', () => {
    const at = (ms: number, e: Record<string, unknown>) => ({ ...e, time: ms * 1e6 });
    const history = [
      at(0, { process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } }),
      at(1, { process: 0, type: 'ok', f: 'acquire', value: { account: 0 } }),
      at(2, { process: 1, type: 'invoke', f: 'acquire', value: { account: 0 } }),
      at(3, { process: 0, type: 'invoke', f: 'release', value: { account: 0 } }),
      at(4, { process: 0, type: 'ok', f: 'release', value: { account: 0, released: true } }),
      at(6000, { process: 1, type: 'ok', f: 'acquire', value: { account: 0 } }),
    ].map((e, index) => ({ ...e, index })) as unknown as Parameters<typeof checkRun>[0];
    const results = checkRun(history, { fencing: false, liveness: { ttlMs: 2000, maxStallMs: 3000 } });
    const found = findings({
      index: new RunIndex(history),
      results,
      faults: [],
      ttlMs: 2000,
      fencing: false,
      lock: 'redis',
    });
    expect(found[0]).toMatchObject({ kind: 'liveness', severity: 'bad' });
    expect(found[0].sentences.join(' ')).toMatch(/free yet untaken|unavailable for 6\.0 s/);
    expect(headline(results, found)).toBe('liveness: a 6.0 s stall, past --max-stall=3000');
  });
});
