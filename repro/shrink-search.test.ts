import { describe, expect, it } from 'vitest';
import { seededRandom } from '../common/random.ts';
import { shrink, type ShrinkDims, type ShrinkOptions } from './shrink-search.ts';

const ORIGINAL: ShrinkDims = {
  concurrency: 5,
  accounts: 3,
  faults: ['pause-holder', 'restart-empty', 'clock'],
  shots: null,
  timeLimitS: 60,
  thinkMs: 400,
};
const FLOORS = { concurrency: 2, accounts: 1, shots: 1, timeLimitS: 8, thinkMs: 0 };
const RUN_MS = 30_000;

/**
 * A fake runner on a fake clock: each run costs RUN_MS and reproduces when `fails(dims)` says so, with probability
 * `p` drawn from a stream seeded by the candidate's and the try's numbers (what the real runner seeds its run with).
 */
function fakeRunner(fails: (d: ShrinkDims) => boolean, p = 1, over: Partial<ShrinkOptions> = {}) {
  let t = 0;
  const started: number[] = [];
  const lines: string[] = [];
  const opts: ShrinkOptions = {
    tries: 5,
    keep: 4,
    budgetMs: 60 * 60_000,
    floors: () => FLOORS,
    originalShots: 12,
    now: () => t,
    progress: (l) => lines.push(l),
    run: async (dims, candidate, attempt) => {
      started.push(t);
      t += RUN_MS;
      const r = seededRandom(candidate * 100 + attempt)();
      return { reproduced: fails(dims) && r < p, runDir: `run-${candidate}-${attempt}` };
    },
    ...over,
  };
  return { opts, started, lines };
}

describe('the shrinker’s search, on a fake runner', () => {
  it('goes to every floor when the failure does not depend on size', async () => {
    const { opts } = fakeRunner(() => true);
    const r = await shrink(ORIGINAL, opts);
    expect(r.stoppedBy).toBe('done');
    expect(r.smallest).toEqual({
      concurrency: 2,
      accounts: 1,
      faults: ['clock'],
      shots: 1,
      timeLimitS: 8,
      thinkMs: 0,
    });
    expect(r.rate).toEqual({ k: 4, n: 4 });
    expect(r.reproducingRuns).toHaveLength(4);
  });

  it('keeps what the failure needs: three clients, and the pause', async () => {
    const { opts } = fakeRunner((d) => d.concurrency >= 3 && d.faults.includes('pause-holder') && d.timeLimitS >= 20);
    const r = await shrink(ORIGINAL, opts);
    expect(r.smallest.concurrency).toBe(3);
    expect(r.smallest.faults).toEqual(['pause-holder']);
    // Bisected to within a quarter: 20 ≤ limit ≤ 25.
    expect(r.smallest.timeLimitS).toBeGreaterThanOrEqual(20);
    expect(r.smallest.timeLimitS).toBeLessThanOrEqual(25);
  });

  it('accepts no candidate below k of n, and reports the smallest accepted one with its own rate', async () => {
    // A flaky failure: 80 % of runs reproduce, whatever the size: some candidates make it, some do not.
    const { opts } = fakeRunner(() => true, 0.8);
    const r = await shrink(ORIGINAL, opts);
    expect(r.candidates.filter((c) => c.accepted).length).toBeGreaterThan(1);
    expect(r.candidates.filter((c) => !c.accepted).length).toBeGreaterThan(0);
    for (const c of r.candidates) {
      expect(c.accepted).toBe(c.reproduced >= 4);
      expect(c.tries).toBeLessThanOrEqual(5);
    }
    const lastKept = r.candidates.filter((c) => c.accepted).at(-1)!;
    expect(r.smallest).toEqual(lastKept.dims);
    expect(r.rate).toEqual({ k: lastKept.reproduced, n: lastKept.tries });
  });

  it('stops a candidate as soon as it is decided (4 of 5 reached, or out of reach)', async () => {
    const { opts } = fakeRunner((d) => d.concurrency >= 5);
    const r = await shrink(ORIGINAL, opts);
    const rejected = r.candidates.find((c) => c.dims.concurrency === 2)!;
    expect(rejected).toMatchObject({ accepted: false, reproduced: 0, tries: 2 });
    expect(r.candidates[0]).toMatchObject({ what: 'the original configuration', tries: 4, reproduced: 4 });
  });

  it('never starts a run once the budget is spent', async () => {
    const budgetMs = 10 * 60_000;
    const { opts, started, lines } = fakeRunner(() => true, 1, { budgetMs });
    const r = await shrink(ORIGINAL, opts);
    expect(r.stoppedBy).toBe('budget');
    expect(Math.max(...started)).toBeLessThan(budgetMs);
    expect(r.elapsedMs).toBeLessThanOrEqual(budgetMs + RUN_MS);
    expect(lines.at(-1)).toMatch(/budget spent after .*; stopping/);
    // What was kept before the budget ran out is still reported, with its rate.
    expect(r.smallest.concurrency).toBe(2);
    expect(r.rate.k).toBeGreaterThanOrEqual(4);
  });

  it('does not shrink a failure that does not recur', async () => {
    const { opts } = fakeRunner(() => true, 0.2);
    const r = await shrink(ORIGINAL, opts);
    expect(r.stoppedBy).toBe('not-recurring');
    expect(r.smallest).toBe(ORIGINAL);
    expect(r.candidates).toHaveLength(1);
  });

  it("narrows a multi-fault original that does not recur to its signature's fault, and shrinks from there", async () => {
    // The README's redlock run: four faults, the signature pause-holder's story; rerun whole, the other faults' lost
    // updates end most runs first (another signature), so the original reproduces 1 in 5; the pause alone always does.
    const { opts } = fakeRunner((d) => d.faults.length === 1 && d.faults[0] === 'pause-holder', 1, {
      storyFault: 'pause-holder',
    });
    const r = await shrink(ORIGINAL, opts);
    expect(r.candidates[0]).toMatchObject({ what: 'the original configuration', accepted: false });
    expect(r.candidates[1]).toMatchObject({
      what: "faults pause-holder,restart-empty,clock → pause-holder (the signature's story)",
      accepted: true,
    });
    expect(r.stoppedBy).toBe('done');
    expect(r.smallest).toMatchObject({ concurrency: 2, accounts: 1, faults: ['pause-holder'], shots: 1 });
  });

  it("takes each number's floor from the fault kinds kept: the section a restart needed goes once the restart does", async () => {
    // Think's floor is 800 ms while restart-empty is in the run (a section wider than a restart), 0 without it.
    const { opts } = fakeRunner((d) => d.faults.includes('pause-holder'), 1, {
      floors: (d) => ({ ...FLOORS, thinkMs: d.faults.includes('restart-empty') ? 800 : 0 }),
    });
    const r = await shrink({ ...ORIGINAL, thinkMs: 800, faults: ['pause-holder', 'restart-empty'] }, opts);
    expect(r.smallest.faults).toEqual(['pause-holder']);
    expect(r.smallest.thinkMs).toBe(0);
  });

  it('gives up when the original and its story alone both do not recur', async () => {
    const { opts } = fakeRunner(() => true, 0.2, { storyFault: 'clock' });
    const r = await shrink(ORIGINAL, opts);
    expect(r.stoppedBy).toBe('not-recurring');
    expect(r.candidates.map((c) => c.dims.faults)).toEqual([ORIGINAL.faults, ['clock']]);
    expect(r.smallest).toBe(ORIGINAL);
  });

  it('is the same search for the same outcomes (seeded): a shrink can be repeated', async () => {
    const a = await shrink(ORIGINAL, fakeRunner((d) => d.accounts <= 2, 0.9).opts);
    const b = await shrink(ORIGINAL, fakeRunner((d) => d.accounts <= 2, 0.9).opts);
    expect(b.candidates).toEqual(a.candidates);
  });

  it('prints one progress line per candidate', async () => {
    const { opts, lines } = fakeRunner(() => true);
    const r = await shrink(ORIGINAL, opts);
    expect(lines).toHaveLength(r.candidates.length);
    expect(lines[1]).toMatch(/^shrink: clients 5 → 2: 4\/4 reproduced in 2 m 0 s — kept \(4 m 0 s of 60 m 0 s\)$/);
  });
});
