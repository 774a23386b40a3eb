import { describe, expect, it } from 'vitest';
import { faultEndSentence, faultStartSentence, rawFaultLine } from './fault-sentence.ts';

/** A restart-empty start record's params as a run journals them (the audit's 624-character log line). */
const RESTART_EMPTY = {
  keys: ['lock:account-0'],
  holder: 'p0',
  holding: ['redis[0]', 'redis[1]', 'redis[2]', 'redis[3]', 'redis[4]'],
  masters: 5,
  killed: ['redis[0]', 'redis[1]', 'redis[4]'],
  restartDelayMs: 0,
  ttlMs: 2000,
  persistence: 'none',
  wiped: true,
  aim: {
    process: 0,
    account: 0,
    readIndex: 55,
    readTime: 3199330674,
    atIndex: 57,
    atTime: 3199561234,
    struck: ['redis[0]', 'redis[1]', 'redis[4]'],
    keysOn: {
      'redis[0]': ['lock:account-0'],
      'redis[1]': ['lock:account-0'],
      'redis[2]': ['lock:account-0'],
      'redis[3]': ['lock:account-0'],
      'redis[4]': ['lock:account-0'],
    },
    needed: 3,
  },
};

describe("the live log's fault sentences", () => {
  it('say what an aimed fault struck and whose critical section it caught, without the raw parameters', () => {
    const line = faultStartSentence('restart-empty', ['redis[0]', 'redis[1]', 'redis[4]'], RESTART_EMPTY, 0);
    expect(line).toBe(
      'restart-empty: killed redis[0], redis[1], redis[4] while p0 was inside its critical section on account 0',
    );
    expect(rawFaultLine('restart-empty', 'start', ['redis[0]'], RESTART_EMPTY).length).toBeGreaterThan(500);
    expect(
      faultStartSentence(
        'pause-holder',
        ['client p3 (pid 4242)'],
        { durationMs: 3000, aim: { process: 3, account: 1, readIndex: 9, atIndex: 10 } },
        3000,
      ),
    ).toBe('pause-holder: paused p3 inside its critical section on account 1, for 3000 ms');
    // One that waits for its story holds at most that long.
    expect(
      faultStartSentence(
        'pause-holder',
        ['client p3 (pid 4242)'],
        { aim: { process: 3, account: 1, readIndex: 9, atIndex: 10 } },
        8000,
        { waitsForStory: true },
      ),
    ).toBe(
      'pause-holder: paused p3 inside its critical section on account 1, until its story is told (at most 8000 ms)',
    );
    expect(faultEndSentence('pause-holder', { heldMs: 2400, endedBy: 'story' }, 2410)).toBe(
      'pause-holder: over after 2410 ms; its story was told',
    );
  });

  it('say what a fault that aims at nothing did to its targets, and for how long', () => {
    expect(
      faultStartSentence('partition', ['clients ⇹ redis[0]', 'clients ⇹ redis[2]'], { durationMs: 3000 }, 3000),
    ).toBe('partition: cut clients ⇹ redis[0], clients ⇹ redis[2], for 3000 ms');
    expect(faultStartSentence('kill', ['etcd leader etcd[1]'], { downMs: 0 }, 0)).toBe(
      'kill: killed etcd leader etcd[1]; it restarts with its data',
    );
    expect(faultStartSentence('some-newer-fault', ['x'], {}, 10)).toBe('some-newer-fault: acted on x, for 10 ms');
  });

  it('cut a long target list with how many more', () => {
    const targets = Array.from({ length: 40 }, (_, i) => `client p${i} (pid ${1000 + i})`);
    const line = faultStartSentence('clock-strobe', targets, {}, 0);
    expect(line.length).toBeLessThan(200);
    expect(line).toMatch(/ and \d+ more$/);
  });

  it('end with how long the fault lasted and what its end record says it did', () => {
    expect(faultEndSentence('partition', { heldBytes: { 'redis[0]': 300, 'redis[2]': 112 } }, 3001.6)).toBe(
      'partition: over after 3002 ms; held 412 bytes',
    );
    expect(faultEndSentence('kill', { restartedInMs: 812, rejoined: false }, 900)).toBe(
      'kill: over after 900 ms; restarted in 812 ms; it did not rejoin',
    );
    expect(faultEndSentence('kill-holder', {}, 2000, 'the slot restarts as after any client exit')).toBe(
      'kill-holder: over after 2000 ms; the slot restarts as after any client exit',
    );
  });
});
