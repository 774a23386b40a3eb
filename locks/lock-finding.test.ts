import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { headingAnchor } from '../common/heading-anchor.ts';
import { lockFinding } from './lock-finding.ts';

const FINDINGS = readFileSync(new URL('../docs/findings.md', import.meta.url), 'utf8');

describe("what the docs say of a lock, for a run's next step", () => {
  it("links an npm library's findings section by the anchor its heading has on the page, with its advice", () => {
    const f = lockFinding('redlock-v4');
    expect(f.token).toBe('none');
    expect(f.advice).toMatch(/^prefer it to 5\.0\.0-beta\.2/);
    const anchors = FINDINGS.split('\n')
      .filter((l) => l.startsWith('## '))
      .map((l) => headingAnchor(l.slice(3)));
    expect(f.doc.startsWith('findings.md#')).toBe(true);
    expect(anchors).toContain(f.doc.slice('findings.md#'.length));
  });

  it("reads each lock's token from its oracle row", () => {
    expect(lockFinding('redlock')).toEqual({ lock: 'redlock', doc: 'locks.md', token: 'none' });
    expect(lockFinding('etcd').token).toBe('token');
    expect(lockFinding('postgres').token).toBe('own-fence');
    expect(lockFinding('none').token).toBe('no-lock');
    expect(lockFinding('kazoo').doc).toBe('locks.md#the-real-libraries-python-java-go');
  });

  it("gives a Python, Java or Go library its row's own advice (a reader found none for them)", () => {
    expect(lockFinding('kazoo')).toMatchObject({
      token: 'token',
      advice: expect.stringMatching(/^fence the write with the lock node's czxid/),
    });
    expect(lockFinding('redis-py')).toMatchObject({
      token: 'none',
      advice: expect.stringContaining('hands out no token'),
    });
    expect(lockFinding('curator').advice).toMatch(/SUSPENDED and LOST/);
  });

  it('points a plugin or a manifest at the page on writing your own lock', () => {
    expect(lockFinding('./my-lock.ts')).toEqual({ lock: './my-lock.ts', doc: 'your-lock.md', token: 'unknown' });
  });
});
