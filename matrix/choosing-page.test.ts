import { describe, expect, it } from 'vitest';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { choosingGrid, choosingMarkdown, gridCell, slug } from './choosing-page.ts';
import { ORACLE } from './oracle.ts';

/** The grid's row of `lock`, its cells after the lock and store columns. */
function row(lock: string): string[] {
  const line = choosingGrid()
    .split('\n')
    .find((l) => l.startsWith(`| [\`${lock}\`]`))!;
  return line.replace(/ \|$/, '').split(' | ').slice(2);
}

describe('docs/choosing.md, by the question a user comes with', () => {
  it('asks the questions users ask, each a heading of its own, then the grid', () => {
    const headings = [...choosingMarkdown().matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'I need mutual exclusion for a cron job on Redis',
      'I have Postgres',
      'My writes go to S3, or another store outside the lock',
      'I need a lock that survives a failover',
      'I use a Node library',
      'I use Python, Java or Go',
      'Every lock, every fault',
    ]);
  });

  it('puts every lock but the no-lock baseline in the grid, once, under the seven columns', () => {
    const grid = choosingGrid();
    for (const lock of BUILTIN_LOCKS.filter((l) => l !== 'none'))
      expect(
        grid.split('\n').filter((l) => l.startsWith(`| [\`${lock}\`]`)),
        lock,
      ).toHaveLength(1);
    expect(grid).not.toContain('[`none`]');
    expect(grid.split('\n')[0]).toMatch(
      /^\| lock \| store \| \[no fault\].*\| \[paused holder\].*\| \[restart empty\].*\| \[clock jump\].*\| \[failover\].*\| \[fencing token\?.*\| \[latency/,
    );
  });

  it('writes each cell from the oracle: the outcome in words, whether there is a token, n/a where the fault cannot reach', () => {
    expect(row('postgres').slice(0, 2)).toEqual(['✓ safe', '✓ safe']);
    expect(row('redis')).toEqual(['✓ safe', '✗ lost', '✗ lost', '✗ lost', '✗ lost', 'no', '✗ lost']);
    expect(row('etcd')[2]).toBe('n/a');
    expect(row('simple-redis-mutex')[5]).toBe('✓ yes: safe');
    expect(row('redlock-npm')[2]).toBe('✗ lost, may livelock');
    expect(gridCell(ORACLE.redis.fencing)).toBe('no token');
  });

  it('answers a Python, Java or Go user per library: its paused-holder cell and its own advice', () => {
    const md = choosingMarkdown();
    const foreign = md.slice(md.indexOf('## I use Python, Java or Go'), md.indexOf('## Every lock, every fault'));
    for (const l of ['redis-py', 'kazoo', 'python-etcd3', 'etcd-go', 'curator'] as const)
      expect(foreign).toContain(`| [\`${l}\`](locks.md#the-real-libraries-python-java-go)`);
    expect(foreign).toMatch(
      /\| \[`python-etcd3`\].* \| etcd \| ✗ lost \| fence the write with the key's create revision/,
    );
  });

  it('computes its answers from the oracle: which locks a paused holder defeats, which fence it', () => {
    const md = choosingMarkdown();
    const s3 = md.slice(md.indexOf('## My writes go to S3'), md.indexOf('## I need a lock that survives'));
    const locks = BUILTIN_LOCKS.filter((l) => l !== 'none');
    const lost = locks.filter((l) => ORACLE[l]['pause-holder'].expect === 'lost');
    expect(s3).toContain(`${lost.length} of the ${locks.length} locks here lose an update to a [paused holder]`);
    // A reader asked whether S3 itself can refuse a stale writer: the answer says how, and that it is not measured.
    expect(s3).toContain('S3 takes conditional writes (`If-Match` with the ETag you read');
    const redis = md.slice(md.indexOf('## I need mutual exclusion'), md.indexOf('## I have Postgres'));
    expect(redis).toMatch(
      /The Redis lock with a fencing token is \[`simple-redis-mutex`\]\(findings\.md#simple-redis-mutex-/,
    );
    expect(redis).toMatch(/avoid \[`redis-lock`\]/);
  });

  it("links an npm library to its findings.md section, by GitHub's anchor of its heading", () => {
    expect(slug("`etcd3-lock` — etcd3@1.1.2's own `client.lock(key)`")).toBe('etcd3-lock--etcd3112s-own-clientlockkey');
    expect(choosingGrid()).toContain('[`etcd3-lock`](findings.md#etcd3-lock--etcd3112s-own-clientlockkey)');
    expect(choosingGrid()).toContain('[`kazoo`](locks.md#the-real-libraries-python-java-go)');
  });
});
