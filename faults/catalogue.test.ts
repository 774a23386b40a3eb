import { describe, expect, it } from 'vitest';
import { FAULT_CATALOGUE, faultColour, faultFacts, faultHelpLines, movesClocks, type FaultTable } from './catalogue.ts';
import type { StartParams } from './evidence.ts';
import { UNKNOWN_FAULT_COLOUR, type FaultFacts, type StoryStepFacts } from './fault-facts.ts';
import { FAULT_NAMES, faultRank } from './fault-names.ts';

const FAMILIES = ['pause', 'crash', 'clock', 'network'];

describe('the fault catalogue', () => {
  it('has a row for every fault name, and every row has every fact', () => {
    expect(FAULT_NAMES.length).toBeGreaterThan(0);
    for (const f of FAULT_NAMES) {
      const row: FaultFacts = FAULT_CATALOGUE[f];
      expect(
        Object.keys(row)
          .filter(
            (k) =>
              ![
                'storyLimits',
                'aliases',
                'did',
                'locksOut',
                'losesReplies',
                'droppedGrant',
                'script',
                'everyLockMustSurvive',
                'columns',
                'scenarios',
                'atClockRate',
                'holderWas',
              ].includes(k),
          )
          .sort(),
        f,
      ).toEqual([
        'aim',
        'colour',
        'evidence',
        'family',
        'help',
        'hit',
        'judge',
        'keepsServerLeases',
        'movesClocks',
        'story',
      ]);
      expect(row.help.trim().length, `${f}: help`).toBeGreaterThan(10);
      expect(row.hit.trim().length, `${f}: hit`).toBeGreaterThan(10);
      expect(FAMILIES, `${f}: family`).toContain(row.family);
      expect(typeof row.movesClocks, `${f}: movesClocks`).toBe('boolean');
      expect(typeof row.keepsServerLeases, `${f}: keepsServerLeases`).toBe('boolean');
      expect(row.colour, `${f}: colour`).toMatch(/^#[0-9a-f]{6}$/);
      if (row.aim !== null) expect(row.aim.struck, `${f}: aim.struck`).toMatch(/\{process\}|\{nodes\}/);
    }
  });

  it('names its faults as the CLI spells them (lower-case words joined by dashes)', () => {
    for (const f of FAULT_NAMES) expect(f).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('the faults aimed at the lock are the ones that strike a holder inside its critical section', () => {
    expect(FAULT_NAMES.filter((f) => FAULT_CATALOGUE[f].aim !== null)).toEqual([
      'pause-holder',
      'kill-holder',
      'kill-session',
      'restart-empty',
      'clock',
      'clock-rate',
      'clock-rate-client',
      'clock-rate-waiters',
      'failover',
    ]);
  });

  it("every fault aimed at the lock (and delay-write, the reply-loss faults, hold-request, one-way and reset, which aim by a client's own traffic) tells a story; no other does", () => {
    expect(FAULT_NAMES.filter((f) => FAULT_CATALOGUE[f].story !== null)).toEqual([
      'pause-holder',
      'kill-holder',
      'kill-session',
      'restart-empty',
      'clock',
      'clock-rate',
      'clock-rate-client',
      'clock-rate-waiters',
      'failover',
      'delay-write',
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-renew',
      'reply-loss-create',
      'reply-loss-delete',
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
      'reply-loss-etcd-acquire',
      'reply-loss-etcd-renew',
      'reply-loss-etcd-release',
      'hold-request',
      'one-way',
      'reset',
    ]);
    for (const f of FAULT_NAMES) {
      const story = FAULT_CATALOGUE[f].story;
      if (!story) continue;
      const ids = story.map((s) => s.id);
      expect(new Set(ids).size, `${f}: step ids are distinct`).toBe(ids.length);
      for (const s of story) expect(s.says.length, `${f}.${s.id}`).toBeGreaterThan(10);
      // A story whose lock may stop it at its first step would let a shot that never struck count as a test.
      expect((story[0] as StoryStepFacts).held, `${f}: the first step is the fault's own`).toBeUndefined();
    }
  });

  it("gives each fault a colour of its own, none an op's or the unknown fault's (pause-node was pause-holder's)", () => {
    // The default redlock run drew pause-node, pause-holder and failed ops all in one orange (audit ux-2026-12-05 §4.1).
    const colours = FAULT_NAMES.map((f) => faultColour(f));
    expect(new Set(colours).size).toBe(FAULT_NAMES.length);
    // The timeline's op keys (report/report-page.ts): ok, fail, info (unknown), never completed.
    for (const op of ['#3fb37f', '#f0a04b', '#a78bfa', '#9ca3af', UNKNOWN_FAULT_COLOUR])
      expect(colours).not.toContain(op);
    expect(faultColour('pause-holder')).toBe('#d946ef');
    expect(faultColour('pause-node')).toBe('#ca8a04');
    expect(faultColour('restart-empty')).toBe('#ef4444');
    expect(faultColour('clock')).toBe('#6366f1');
    expect(faultColour('a-fault-from-a-newer-fencepost')).toBe(UNKNOWN_FAULT_COLOUR);
    expect(faultColour('constructor')).toBe(UNKNOWN_FAULT_COLOUR); // not an own key of the catalogue
  });

  it('ranks faults in catalogue order, an unknown name after all of them', () => {
    expect(faultRank('pause-holder')).toBeLessThan(faultRank('restart-empty'));
    expect(faultRank('restart-empty')).toBeLessThan(faultRank('clock'));
    expect(faultRank('no-such-fault')).toBe(FAULT_NAMES.length);
  });

  it('gives --help one line per fault, in catalogue order', () => {
    const lines = faultHelpLines('  ', 14);
    expect(lines).toHaveLength(FAULT_NAMES.length);
    expect(lines[0]).toBe(`  ${'pause-holder'.padEnd(14)} ${FAULT_CATALOGUE['pause-holder'].help}`);
  });

  it('knows nothing of a name it does not have', () => {
    expect(faultFacts('toString')).toBeNull();
    expect(faultFacts('clock')?.family).toBe('clock');
  });
});

describe('movesClocks (for a history of any fencepost version)', () => {
  it('is true for the clock faults, false for the others and for names it does not know', () => {
    expect(movesClocks('clock')).toBe(true);
    expect(movesClocks('clock-strobe')).toBe(true);
    expect(movesClocks('pause-holder')).toBe(false);
    expect(movesClocks('clock-skew-from-the-future')).toBe(false);
    expect(movesClocks('toString')).toBe(false); // not an own key of the catalogue
  });
});

describe('--help', () => {
  it('lists every fault with its catalogue line (wrapped to the terminal)', async () => {
    const { globalHelp } = await import('../cli/command-help.ts');
    const text = globalHelp(100).replace(/\s+/g, ' ');
    for (const f of FAULT_NAMES) expect(text).toContain(`${f} ${FAULT_CATALOGUE[f].help}`);
  });
});

describe('a fault with a missing part does not compile', () => {
  // What tsc refuses (npm run typecheck reads this file): each line below would compile only if the table let a
  // fault in without its judge, with another fault's judge, or an executor write a key its facts do not declare.
  it('refuses a table without a fault, a fault without a judge or judged by another, and an undeclared key', () => {
    const { kill: _kill, ...withoutKill } = FAULT_CATALOGUE;
    // @ts-expect-error kill has no line
    const missing: FaultTable = withoutKill;
    const { judge: _judge, ...killUnjudged } = FAULT_CATALOGUE.kill;
    // @ts-expect-error kill has no judge
    const unjudged: FaultTable = { ...FAULT_CATALOGUE, kill: killUnjudged };
    const judgedAsPause = { ...FAULT_CATALOGUE.kill, judge: FAULT_CATALOGUE['pause-holder'].judge };
    // @ts-expect-error kill judged by pause-holder's evidence
    const swapped: FaultTable = { ...FAULT_CATALOGUE, kill: judgedAsPause };
    // @ts-expect-error kill's facts declare no `downFor`
    const undeclared: StartParams<'kill'> = { downMs: 0, leader: true, withData: true, downFor: 1 };
    const whole: FaultTable = FAULT_CATALOGUE;
    expect([missing, unjudged, swapped, undeclared, whole]).toHaveLength(5);
  });
});
