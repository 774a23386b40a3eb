import { describe, expect, it } from 'vitest';
import { fenceVerdict, probeOutcome, type ProbeReply } from './fence-proof.ts';

/** Replies as Redis 7.0 and 7.2 and etcd 3.5 word them. */
const DONE: ProbeReply = { done: true };
const KEY_70: ProbeReply = {
  done: false,
  error: 'NOPERM this user has no permissions to access one of the keys used as arguments',
};
const KEY_72: ProbeReply = { done: false, error: 'NOPERM No permissions to access a key' };
const GET_CMD_70: ProbeReply = {
  done: false,
  error: "NOPERM this user has no permissions to run the 'get' command or its subcommand",
};
const GET_CMD_72: ProbeReply = { done: false, error: "NOPERM User noget has no permissions to run the 'get' command" };
const ETCD_DENIED: ProbeReply = { done: false, error: 'etcdserver: permission denied' };
const DOWN: ProbeReply = { done: false, error: 'connect ECONNREFUSED 127.0.0.1:16390' };
const KEY = 'fencepost-fence-probe-0a1b2c3d4e5f';

describe('how a reply to a probe counts', () => {
  it('a key refusal proves the fence; a command refusal proves nothing about keys (audit R6)', () => {
    expect(probeOutcome('redis', KEY_70)).toBe('key-refused');
    expect(probeOutcome('redis', KEY_72)).toBe('key-refused');
    expect(probeOutcome('redis', GET_CMD_70)).toBe('command-refused');
    expect(probeOutcome('redis', GET_CMD_72)).toBe('command-refused');
    expect(probeOutcome('redis', DOWN)).toBe('failed');
    expect(probeOutcome('etcd', ETCD_DENIED)).toBe('key-refused');
    expect(probeOutcome('etcd', DONE)).toBe('done');
  });
});

describe('the fence verdict from the three replies', () => {
  it('the documented user (~fp-ci/* +@all -@dangerous): read, write and delete refused for the key → fenced', () => {
    expect(fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: KEY_72, write: KEY_72, delete: KEY_72 })).toEqual({
      server: 'r0',
      fence: 'fenced',
      said: 'GET, SET NX PX, DEL outside fp-ci/* → NOPERM (read, write and delete refused for the key)',
    });
  });

  it('~* -get: GET refused as a command, SET and DEL answered → open (was fenced on the GET alone)', () => {
    const v = fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: GET_CMD_72, write: DONE, delete: DONE });
    expect(v.fence).toBe('open');
    expect(v.said).toBe(
      `SET NX PX ${KEY}, DEL ${KEY} were answered: this user can write and delete outside fp-ci/; the probe's write was deleted again`,
    );
  });

  it('%R~fp-ci/* %W~*: the read refused for the key, the write and delete answered → open', () => {
    const v = fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: KEY_70, write: DONE, delete: DONE });
    expect(v.fence).toBe('open');
  });

  it('a write that got through but whose delete was refused: open, and says the key expires by itself', () => {
    const v = fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: KEY_72, write: DONE, delete: GET_CMD_72 });
    expect(v).toMatchObject({ fence: 'open' });
    expect(v.said).toContain("the probe's write expires by itself within 5 s");
  });

  it('only command refusals, or a server that does not answer: unknown, never fenced', () => {
    expect(fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: GET_CMD_70, write: KEY_72, delete: KEY_72 })).toEqual({
      server: 'r0',
      fence: 'unknown',
      said: `GET was refused as a command, which proves nothing about keys (${GET_CMD_70.done ? '' : GET_CMD_70.error})`,
    });
    expect(fenceVerdict('r0', 'redis', KEY, 'fp-ci/', { read: DOWN, write: DOWN, delete: DOWN }).fence).toBe('unknown');
  });

  it('etcd: get, put and delete each denied → fenced; a put answered → open', () => {
    expect(
      fenceVerdict('etcd', 'etcd', KEY, 'fp-ci/', { read: ETCD_DENIED, write: ETCD_DENIED, delete: ETCD_DENIED }),
    ).toEqual({
      server: 'etcd',
      fence: 'fenced',
      said: 'get, put, delete outside fp-ci/ → permission denied (read, write and delete refused for the key)',
    });
    expect(fenceVerdict('etcd', 'etcd', KEY, 'fp-ci/', { read: ETCD_DENIED, write: DONE, delete: DONE }).fence).toBe(
      'open',
    );
  });
});
