import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import { lostReplyFindings, readExpect } from './scenario-expect.ts';
import { scenarioFromJson } from './scenario-file.ts';

const ORPHAN =
  "orphaned lock on account 0 for 1.9 s, TTL 2.0 s: p0's acquire #2 was granted (its key on the server) but its reply was lost (reply-loss-acquire #1) and it ended info; the server kept it until p1 was granted — within the TTL plus p0's retry budget (0.5 s): a lease's expected cost";
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

const orphanFinding = { checker: 'lost-replies', anomaly: 'orphaned-lock' };

describe('a scenario may expect a lost-replies finding, or nothing', () => {
  it('reads a finding and "clean"; refuses an unknown anomaly, naming the four', () => {
    expect(readExpect(orphanFinding)).toEqual({ expect: orphanFinding });
    expect(readExpect('clean')).toEqual({ expect: 'clean' });
    expect(readExpect({ checker: 'lost-replies', anomaly: 'deadlock' })).toEqual({
      problem:
        'lost-replies anomaly "deadlock": one of orphaned-lock, never-released, released-another, double-ownership',
    });
    expect(readExpect({ checker: 'lost-replies', anomaly: 'orphaned-lock', story: null })).toEqual({
      problem: expect.stringMatching(/not story$/),
    });
    expect(readExpect('dirty')).toEqual({ problem: expect.stringMatching(/or "clean"$/) });
    const file = {
      fencepost: 'scenario',
      version: 1,
      name: 's',
      clients: ['A'],
      steps: ['A acquire', 'A release'],
      expect: 'clean',
    };
    expect(scenarioFromJson(file)).toMatchObject({ scenario: { expect: 'clean' } });
    expect(scenarioFromJson({ ...file, expect: { checker: 'lost-replies', anomaly: 'x' } })).toMatchObject({
      problems: [expect.stringMatching(/^`expect`: lost-replies anomaly "x"/)],
    });
  });

  it('finds the kinds present in the results, in the checker order', () => {
    expect(lostReplyFindings(results({ orphans: [{ text: ORPHAN }] }))).toEqual(['orphaned-lock']);
    expect(lostReplyFindings(results({ doubleOwnership: [{}], neverReleased: [{}] }))).toEqual([
      'never-released',
      'double-ownership',
    ]);
    expect(lostReplyFindings(results({}))).toEqual([]);
  });
});
