import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import type { ScenarioRecord } from '../store/test-json.ts';
import { readExpect } from '../scenario/scenario-expect.ts';
import { judgeRun, replaySummary, type ReplayRun } from './replay-tally.ts';

const ORPHAN =
  "orphaned lock on account 0 for 1.9 s, TTL 2.0 s: p0's acquire #2 was granted (its key on the server) but its reply was lost (reply-loss-acquire #1) and it ended info; the server kept it until p1 was granted — within the TTL plus p0's retry budget (0.5 s): a lease's expected cost";
const DOUBLE =
  "double ownership: p0's acquire #2 of account 0 had its grant's reply lost (reply-loss-acquire #1), was retried and ended ok, and its release #9 returned ok without freeing the lock (p1 waited 1.9 s): held twice, released once";

/** A run's results as the checkers write them: VALID unless a deciding checker is named INVALID. */
function results(lost: { orphans?: object[]; doubleOwnership?: object[]; neverReleased?: object[] }, invalid = false) {
  return {
    valid: !invalid,
    staleWritesRejected: 0,
    faultHits: {},
    lostUpdateDetails: invalid
      ? [
          {
            lost: { process: 0, value: 1 },
            overwrittenBy: { process: 1, value: 2 },
            lostOpIndex: 3,
            overwrittenByOpIndex: 5,
          },
        ]
      : [],
    overlapDetails: [],
    checkers: {
      'lost-updates': { valid: !invalid },
      'mutual-exclusion': { valid: true },
      'lost-replies': {
        valid: !(lost.doubleOwnership?.length || lost.neverReleased?.length),
        orphans: lost.orphans ?? [],
        neverReleased: lost.neverReleased ?? [],
        releasedAnother: [],
        doubleOwnership: lost.doubleOwnership ?? [],
        findings: [],
      },
    },
  } as unknown as RunResults;
}

const followed = { followed: true, diverged: null } as unknown as ScenarioRecord;
const diverged = {
  followed: false,
  diverged: { step: 2, text: 'A acquire', why: 'A was granted nothing' },
} as unknown as ScenarioRecord;
const scenario = { clients: ['A', 'B'] };
const judge = (r: RunResults, record: ScenarioRecord, expectRaw: unknown): ReplayRun => {
  const read = readExpect(expectRaw);
  if ('problem' in read) throw new Error(read.problem);
  return judgeRun('runs/x', r, record, undefined, { expect: read.expect, scenario });
};
const orphanFinding = { checker: 'lost-replies', anomaly: 'orphaned-lock' };

describe('replay counts a finding, or clean, on literal results', () => {
  it("counts a followed VALID run with the finding as reproduced, in the checker's words", () => {
    const run = judge(results({ orphans: [{ text: ORPHAN }] }), followed, orphanFinding);
    expect(run).toMatchObject({ verdict: true, reproduced: true, differently: false, findings: ['orphaned-lock'] });
    expect(run.line).toBe(`VALID, reproduced: ${ORPHAN}`);
  });

  it('a run with another finding, or a failure, is not reproduced and says what it showed', () => {
    const other = judge(results({ doubleOwnership: [{ text: DOUBLE }] }), followed, orphanFinding);
    expect(other).toMatchObject({ reproduced: false, differently: true });
    expect(other.line).toBe('VALID, a different finding: lost-replies/double-ownership');
    const failed = judge(results({}, true), followed, orphanFinding);
    expect(failed).toMatchObject({ reproduced: false, differently: true, verdict: false });
    expect(failed.line).toMatch(
      /^INVALID, a different failure: lost-updates\/lost-update with no whole fault story — /,
    );
    const nothing = judge(results({}), followed, orphanFinding);
    expect(nothing).toMatchObject({ reproduced: false, differently: false });
    expect(nothing.line).toBe('VALID: no failure and no lost-replies finding (stale writes rejected: 0)');
  });

  it('a run that did not follow its script is no evidence, finding or not', () => {
    const run = judge(results({ orphans: [{ text: ORPHAN }] }), diverged, orphanFinding);
    expect(run).toMatchObject({ followed: false, reproduced: false, differently: false });
    expect(run.line).toBe('could not follow its script (step 2 "A acquire": A was granted nothing)');
  });

  it('"clean": reproduced only with no failure and no finding at all', () => {
    expect(judge(results({}), followed, 'clean')).toMatchObject({ reproduced: true, differently: false });
    expect(judge(results({}), followed, 'clean').line).toBe(
      'VALID, reproduced: no failure and no lost-replies finding',
    );
    const orphaned = judge(results({ orphans: [{ text: ORPHAN }] }), followed, 'clean');
    expect(orphaned).toMatchObject({ reproduced: false, differently: true });
    expect(orphaned.line).toBe('VALID, a different finding: lost-replies/orphaned-lock');
    expect(judge(results({}, true), followed, 'clean')).toMatchObject({ reproduced: false, differently: true });
  });

  it('"clean" counts only when the faults the script strikes hit: a drop that never came shows no recovery', () => {
    const read = readExpect('clean');
    if ('problem' in read) throw new Error(read.problem);
    const withFault = { clients: ['A', 'B'], faults: ['reply-loss-create'] };
    const hit = { ...results({}), faultHits: { 'reply-loss-create': { fired: 1, hit: 1, shots: [] } } } as RunResults;
    const missed = {
      ...results({}),
      faultHits: { 'reply-loss-create': { fired: 1, hit: 0, shots: [] } },
    } as RunResults;
    expect(judgeRun('r', hit, followed, undefined, { expect: read.expect, scenario: withFault }).reproduced).toBe(true);
    const run = judgeRun('r', missed, followed, undefined, { expect: read.expect, scenario: withFault });
    expect(run).toMatchObject({ reproduced: false, differently: false });
    expect(run.line).toBe('VALID: nothing found, but reply-loss-create never hit: no evidence of a recovery');
  });

  it("a signature's replay leaves the findings aside, as before", () => {
    const sig = { checker: 'lost-updates', anomaly: 'lost-update', story: null };
    const run = judge(results({ orphans: [{ text: ORPHAN }] }), followed, sig);
    expect(run).toMatchObject({ reproduced: false, differently: false });
    expect(run.line).toBe('VALID: no failure (stale writes rejected: 0)');
    expect(judge(results({}, true), followed, sig)).toMatchObject({ reproduced: true });
  });

  it('the summary counts the finding and names it: 2 of 2 followed, the diverged apart', () => {
    const runs = [
      judge(results({ orphans: [{ text: ORPHAN }] }), followed, orphanFinding),
      judge(results({ orphans: [{ text: ORPHAN }] }), followed, orphanFinding),
      judge(results({}), diverged, orphanFinding),
    ];
    const s = replaySummary(
      {
        name: 'self-blocking',
        file: 'f.json',
        expect: { checker: 'lost-replies', anomaly: 'orphaned-lock' },
        original: null,
      },
      { lock: 'redis', fencing: false, seed: 1 },
      runs,
    );
    expect(s.rate).toMatchObject({ k: 2, n: 2 });
    expect(s.text.split('\n').slice(1, 5)).toEqual([
      '  replay self-blocking: 3 runs with --lock=redis (seed 1)',
      `  shows it 2/2 (Wilson 95 %: 34–100 %): ${ORPHAN}`,
      '  counts as reproduced: lost-replies/orphaned-lock (a liveness finding: the verdict may be VALID)',
      '  followed its script: 2   could not (not evidence either way): 1   showed something else: 0   showed nothing: 0',
    ]);
  });

  it('the summary of a clean scenario says "clean k/n"', () => {
    const runs = [
      judge(results({}), followed, 'clean'),
      judge(results({ orphans: [{ text: ORPHAN }] }), followed, 'clean'),
    ];
    const s = replaySummary(
      { name: 'idempotent', file: 'f.json', expect: 'clean', original: null },
      { lock: 'curator', fencing: false, seed: 1 },
      runs,
    );
    expect(s.text).toContain('\n  clean 1/2 (Wilson 95 %: 9–91 %)\n');
    expect(s.text).toContain('showed something else: 1   showed nothing: 0');
    expect(s.text).toContain('  differently: VALID, a different finding: lost-replies/orphaned-lock');
  });
});
