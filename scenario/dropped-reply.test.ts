import { describe, expect, it } from 'vitest';
import { droppedReplyOutcome, faultDroppingReplyTo } from './dropped-reply.ts';
import { scenarioFromJson } from './scenario-file.ts';

describe('a client step whose reply a fault drops on purpose', () => {
  it("finds reply-loss-acquire in effect on A for A's acquire, and nothing for B, for A's release or for another fault", () => {
    const open = ['reply-loss-acquire:A', 'pause-holder:B'];
    expect(faultDroppingReplyTo(open, 'A', 'acquire')).toBe('reply-loss-acquire');
    expect(faultDroppingReplyTo(open, 'B', 'acquire')).toBeUndefined();
    expect(faultDroppingReplyTo(open, 'A', 'release')).toBeUndefined();
    expect(faultDroppingReplyTo(['reply-loss:A'], 'A', 'acquire')).toBeUndefined();
  });

  it('reads an acquire that was not granted as done, naming the fault; a granted one stays as it was', () => {
    const notGranted = {
      status: 'diverged' as const,
      evidence: 'A was not granted account 0 (#2, info: Command timed out)',
    };
    expect(droppedReplyOutcome(notGranted, 'reply-loss-acquire')).toEqual({
      status: 'done',
      evidence:
        'A was not granted account 0 (#2, info: Command timed out): its reply was dropped by reply-loss-acquire',
    });
    const granted = { status: 'done' as const, evidence: 'A was granted account 0 (#2)' };
    expect(droppedReplyOutcome(granted, 'reply-loss-acquire')).toBe(granted);
  });

  it('a script arms reply-loss-acquire and reply-loss-create before the acquire they aim at', () => {
    for (const fault of ['reply-loss-acquire', 'reply-loss-create']) {
      const read = scenarioFromJson({
        fencepost: 'scenario',
        version: 1,
        name: fault,
        clients: ['A', 'B'],
        steps: [`start ${fault} A`, 'A acquire', `wait ${fault} A`, `heal ${fault} A`, 'B acquire', 'B release'],
      });
      expect('scenario' in read ? read.scenario.faults : read.problems).toEqual([fault]);
    }
  });
});
