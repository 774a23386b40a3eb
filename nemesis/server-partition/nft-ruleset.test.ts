import { describe, expect, it } from 'vitest';
import {
  dropCounts,
  fitComment,
  grudgeText,
  healText,
  markRuleText,
  tableText,
  type NetMember,
} from './nft-ruleset.ts';
import { netName } from './server-net.ts';
import { cgroup2Mount } from '../../common/cgroup2.ts';
import { establishedByInode } from './client-links.ts';

const T = 'fencepost-2026-12-02T00-00-00000Z-1a2b3c4d';
const member = (i: number, ports: number[]): NetMember => ({
  name: `etcd[${i}]`,
  cgroupPath: `unified/${T}/etcd${i}`,
  level: 2,
  mark: 0x0fe50001 + i,
  ports,
});

describe('nftables text of server partitions', () => {
  it('the table: a comment naming the run, a marking chain before the filter priority, an empty grudge chain', () => {
    expect(tableText(T, 'fencepost run /r/etcd/x')).toBe(
      [
        `table inet ${T} {`,
        '  comment "fencepost run /r/etcd/x"',
        '  chain members { type filter hook output priority -150; policy accept; }',
        '  chain grudge { type filter hook output priority 0; policy accept; }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it("marks a member's connections by its socket's cgroup, in the original direction only", () => {
    expect(markRuleText(T, member(0, [2380]))).toBe(
      `add rule inet ${T} members socket cgroupv2 level 2 "unified/${T}/etcd0" ct direction original ct mark set 0x0fe50001 comment "etcd[0]"\n`,
    );
  });

  it('drops both ways of every cut pair, each dialled either way, counting; no rule towards a member nobody dials', () => {
    const members = [member(0, [2380]), member(1, [2381]), { ...member(2, []), name: 'redis-replica' }];
    const text = grudgeText(T, members, [
      ['etcd[0]', 'etcd[1]'],
      ['etcd[0]', 'redis-replica'],
    ]);
    expect(text.split('\n')).toEqual([
      `flush chain inet ${T} grudge`,
      `add rule inet ${T} grudge ct mark 0x0fe50001 ct direction original tcp dport { 2381 } counter drop comment "etcd[0] -> etcd[1]"`,
      `add rule inet ${T} grudge ct mark 0x0fe50001 ct direction reply tcp sport { 2381 } counter drop comment "etcd[1] -> etcd[0] (reply)"`,
      `add rule inet ${T} grudge ct mark 0x0fe50002 ct direction original tcp dport { 2380 } counter drop comment "etcd[1] -> etcd[0]"`,
      `add rule inet ${T} grudge ct mark 0x0fe50002 ct direction reply tcp sport { 2380 } counter drop comment "etcd[0] -> etcd[1] (reply)"`,
      `add rule inet ${T} grudge ct mark 0x0fe50003 ct direction original tcp dport { 2380 } counter drop comment "redis-replica -> etcd[0]"`,
      `add rule inet ${T} grudge ct mark 0x0fe50003 ct direction reply tcp sport { 2380 } counter drop comment "etcd[0] -> redis-replica (reply)"`,
      '',
    ]);
    expect(healText(T)).toBe(`flush chain inet ${T} grudge\n`);
  });

  it('refuses a grudge naming a server the table does not know, and a name nft would have to unquote', () => {
    expect(() => grudgeText(T, [member(0, [1])], [['etcd[0]', 'etcd[9]']])).toThrow(/etcd\[9\], which is not a member/);
    expect(() => tableText(T, 'a "quoted" dir')).toThrow(/quote/);
  });

  it("reads the grudge chain's counters from nft -j output, skipping the other chain and non-rules", () => {
    const json = JSON.stringify({
      nftables: [
        { metainfo: { version: '1.0.6' } },
        { chain: { name: 'grudge' } },
        { rule: { chain: 'members', comment: 'etcd[0]', expr: [{ counter: { packets: 9, bytes: 900 } }] } },
        {
          rule: {
            chain: 'grudge',
            comment: 'etcd[0] -> etcd[1]',
            expr: [{ match: {} }, { counter: { packets: 3, bytes: 212 } }, { drop: null }],
          },
        },
        { rule: { chain: 'grudge', comment: 'no counter', expr: [{ drop: null }] } },
      ],
    });
    expect(dropCounts(json)).toEqual([{ comment: 'etcd[0] -> etcd[1]', packets: 3, bytes: 212 }]);
  });
});

describe('the names and places server partitions use', () => {
  it('finds cgroup2 under /sys/fs/cgroup (hybrid or unified), nowhere else', () => {
    const hybrid = 'tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n';
    expect(cgroup2Mount(hybrid)).toBe('/sys/fs/cgroup/unified');
    expect(cgroup2Mount('cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n')).toBe('/sys/fs/cgroup');
    expect(cgroup2Mount('cgroup2 /mnt/cg cgroup2 rw 0 0\n')).toBeNull();
  });

  it("names a run's table after its dir and the dir's path: two runs of the same second differ", () => {
    const a = netName('/tmp/results-a/etcd/2026-12-02T00-28-04.956Z');
    const b = netName('/tmp/results-b/etcd/2026-12-02T00-28-04.956Z');
    expect(a).toMatch(/^fencepost-2026-12-02T00-28-04956Z-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(netName('/tmp/results-a/etcd/2026-12-02T00-28-04.956Z')).toBe(a);
  });

  it('reads established connections and their remote ports from /proc/net/tcp', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0',
      '   1: 0100007F:D2F0 0100007F:094C 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0 20 4 30 10 -1',
    ].join('\n');
    expect([...establishedByInode(text)]).toEqual([['222', 2380]]);
  });
});

describe('the table comment', () => {
  // A run under a deep results folder (CI's clone in a mktemp folder) failed its whole set-up: nft refused the
  // comment ("comment too long, 128 characters maximum allowed") and the run exited 254.
  it("fits in nft's 128 bytes however deep the run dir, keeping its end", () => {
    const deep = `fencepost run /tmp/tmp.AbCdEf1234/fencepost/test-output/results/server-partition-kill9-1234567890/zookeeper/2026-12-02T02-33-45.094Z`;
    expect(Buffer.byteLength(deep)).toBeGreaterThan(128);
    const text = tableText(T, deep);
    const comment = /comment "(.*)"/.exec(text)![1];
    expect(Buffer.byteLength(comment)).toBeLessThanOrEqual(127);
    expect(comment.startsWith('fencepost run …')).toBe(true);
    expect(comment.endsWith('zookeeper/2026-12-02T02-33-45.094Z')).toBe(true);
    expect(fitComment('fencepost run /r/etcd/x')).toBe('fencepost run /r/etcd/x');
  });
});
