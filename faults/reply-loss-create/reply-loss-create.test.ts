import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { fail, history, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { CREATE_OF, replyLossCreate } from './inject.ts';
import { ownerHex, splitPath } from './own-children.ts';

/** reply-loss-create's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const PATH = '/fencepost/locks/account-0/c1-0a1b2c3d4e5f-lock-';
const NODE = 'c1-0a1b2c3d4e5f-lock-0000000042';

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-create',
  value: { phase, targets: ['client p1 → zk[0], zk[1], zk[2]'], params },
});

describe("reply-loss-create: the create's reply dropped → ZooKeeper held the node → the recipe found it again", () => {
  const start = nemesis('start', { slot: 1, process: 1, ttlMs: 2000 });
  // Line 1 is p1's acquire invoke (1 ms), line 2 its completion; the drop is at 1.5 ms, while it is in progress.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      droppedOn: ['zk[1]'],
      path: PATH,
      after: { [NODE]: '100000a3c5e0001' },
      atGrant: { [NODE]: '100000a3c5e0001' },
      droppedAt: 1_500_000,
      ...params,
    });
  const story = (e = end(), completion: Event = ok(1, 'acquire', { account: 0, token: '77' })) => [
    start,
    invoke(1, 'acquire', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-create'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the node the unanswered create made is the one the acquire was granted on', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'recovered:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      `the reply to p1's create of ${PATH} was dropped on zk[1] and the connection reset → right after the drop /fencepost/locks/account-0 held ${NODE} (session 0x100000a3c5e0001) → p1's acquire #2 ended ok holding ${NODE}, the node the dropped create made, and no second`,
    );
  });

  it('no ephemeral child named by the create after the drop is a miss: nothing shows the create took effect', () => {
    expect(gap(shotOf(story(end({ after: {}, atGrant: {} }))))).toBe('committed');
    expect(shotOf(story(end({ after: {} }))).evidence).toMatch(
      /missing committed: no child of \/fencepost\/locks\/account-0 carried c1-0a1b2c3d4e5f-lock- right after the drop/,
    );
    // mkdirp's create of the lock directory: a persistent node, no session's.
    const dir = end({ path: '/fencepost/locks/account-0', after: { 'account-0': '0' } });
    expect(shotOf(story(dir)).evidence).toMatch(/none ephemeral: not a lock node's create/);
    expect(gap(shotOf(story(end({ readError: 'ZooKeeper session expired' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ path: undefined }))))).toBe('committed');
  });

  it('a second node with the prefix, another node, or an acquire that was not granted is not the idempotent class', () => {
    const second = end({
      atGrant: { [NODE]: '100000a3c5e0001', 'c1-0a1b2c3d4e5f-lock-0000000043': '100000a3c5e0001' },
    });
    expect(gap(shotOf(story(second)))).toBe('recovered');
    expect(shotOf(story(second)).evidence).toMatch(/2 children carried its name .*: a second node$/);
    const other = end({ atGrant: { 'c1-0a1b2c3d4e5f-lock-0000000043': '100000a3c5e0001' } });
    expect(shotOf(story(other)).evidence).toMatch(/granted holding c1-0a1b2c3d4e5f-lock-0000000043, not the node/);
    // The same name on another session is not this session's node.
    expect(gap(shotOf(story(end({ atGrant: { [NODE]: '200000a3c5e0009' } }))))).toBe('recovered');
    const timedOut = fail(1, 'acquire', { account: 0 }, 'not-acquired');
    expect(shotOf(story(end({ atGrant: undefined }), timedOut)).evidence).toMatch(
      /p1's acquire #1 ended fail \(not-acquired\): the recipe did not recover its node$/,
    );
    expect(gap(shotOf(story(end({ atGrant: undefined }))))).toBe('recovered');
  });

  it('no drop, or no acquire in progress at the drop, is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end({ droppedAt: 500_000 }))))).toBe('recovered');
  });

  it("acts on zookeeper's recipe and Curator's InterProcessMutex, each aimed at the request that makes its node", () => {
    const servers = (zk: number) => ({ redis: zk ? 0 : 1, etcd: 0, zk });
    expect(replyLossCreate.refusal(servers(3), 'zookeeper')).toBeNull();
    expect(replyLossCreate.refusal(servers(3), 'curator')).toBeNull();
    expect(replyLossCreate.refusal(servers(0), 'redis')).toBe('--lock=redis uses no ZooKeeper server');
    expect(replyLossCreate.refusal(servers(3), 'kazoo')).toMatch(/known for --lock=zookeeper, curator only/);
    expect(CREATE_OF).toEqual({ zookeeper: 'create', curator: 'create2' });
  });
});

describe("the children a create's path names", () => {
  it('splits the path into its directory and the name it asked for', () => {
    expect(splitPath(PATH)).toEqual({ dir: '/fencepost/locks/account-0', base: 'c1-0a1b2c3d4e5f-lock-' });
    expect(splitPath('/fencepost')).toEqual({ dir: '/', base: 'fencepost' });
  });

  it('prints a session id as ZooKeeper does, and a persistent node as 0', () => {
    expect(ownerHex(Buffer.from('0100000a3c5e0001', 'hex'))).toBe('100000a3c5e0001');
    expect(ownerHex(Buffer.alloc(8))).toBe('0');
  });
});
