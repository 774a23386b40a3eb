import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../cluster/cluster.ts';
import { createLocalCluster } from '../../cluster/local/cluster.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import { Resource, setupResource, type WriteMode } from '../../workloads/resource.ts';
import type { ReadOk, WriteValue } from '../../history/bank.ts';
import { testResultsDir } from './processes.ts';

/** The account + ledger resource against a real Postgres: how each write mode admits or refuses a write. */
let dir: string;
let cluster: Cluster;
let old: Resource;
let next: Resource;

beforeAll(async () => {
  dir = testResultsDir('resource');
  cluster = await createLocalCluster({ pg: true }, dir, new PidRegistry(path.join(dir, 'pids')));
  await cluster.start();
  [old, next] = await Promise.all([
    Resource.connect(cluster.pg!.connectionConfig()),
    Resource.connect(cluster.pg!.connectionConfig()),
  ]);
});

afterAll(async () => {
  await Promise.all([old?.close(), next?.close()]);
  await cluster?.teardown();
  fs.rmSync(dir, { recursive: true, force: true });
});

const writeFrom = (read: ReadOk, delta: number, token?: string): WriteValue => ({
  account: read.account,
  from: read.balance,
  to: read.balance + delta,
  delta,
  token,
  basedOn: read.lastWriteId,
  version: read.version,
});

async function fresh(): Promise<void> {
  await setupResource(cluster.pg!.connectionConfig(), 1);
}

describe('resource', () => {
  it('plain: a stale read-modify-write is admitted and erases the write before it (the lost update)', async () => {
    await fresh();
    const a = (await old.read(0)) as ReadOk;
    const b = (await next.read(0)) as ReadOk;
    expect(await next.write(writeFrom(b, 5), 'plain', 1)).toEqual({ ok: true, writeId: 1 });
    expect(await old.write(writeFrom(a, 7), 'plain', 0)).toEqual({ ok: true, writeId: 2 });
    const final = await old.finalRead(0);
    expect(final.balance).toBe(1007);
    expect(final.ledger.map((r) => [r.writeId, r.basedOn])).toEqual([
      [1, 0],
      [2, 0],
    ]);
  });

  it('version: a write whose read went stale is refused', async () => {
    await fresh();
    const a = (await old.read(0)) as ReadOk;
    const b = (await next.read(0)) as ReadOk;
    expect((await next.write(writeFrom(b, 5), 'version', 1)).ok).toBe(true);
    expect(await old.write(writeFrom(a, 7), 'version', 0)).toEqual({ ok: false, reason: 'version-conflict' });
    expect((await old.finalRead(0)).balance).toBe(1005);
  });

  it('fenced: an older token is refused after a newer one wrote', async () => {
    await fresh();
    const a = (await old.read(0, '5')) as ReadOk;
    const b = (await next.read(0, '7')) as ReadOk;
    expect((await next.write(writeFrom(b, 5, '7'), 'fenced', 1)).ok).toBe(true);
    expect(await old.write(writeFrom(a, 7, '5'), 'fenced', 0)).toEqual({ ok: false, reason: 'stale-token' });
  });

  it('fenced: an older token is refused once a newer holder has only *read* (the gap a write-only fence leaves)', async () => {
    await fresh();
    // The old holder (token 5) read, then was paused; its lease expired and token 7 was granted.
    const a = (await old.read(0, '5')) as ReadOk;
    const b = (await next.read(0, '7')) as ReadOk;
    // It resumes before the new holder writes: without the fence raised by the read, this write would be
    // accepted (5 ≥ anything *written*) and then erased by the new holder's write based on its earlier read.
    expect(await old.write(writeFrom(a, 7, '5'), 'fenced', 0)).toEqual({ ok: false, reason: 'stale-token' });
    expect((await next.write(writeFrom(b, 5, '7'), 'fenced', 1)).ok).toBe(true);
    // And a read with the old token is refused too.
    expect(await old.read(0, '5')).toEqual({ stale: true });
    const final = await old.finalRead(0);
    expect(final).toMatchObject({ balance: 1005, fence: '7' });
  });

  it.each<WriteMode>(['plain', 'fenced', 'version'])(
    '%s: the ledger row exists iff the update happened',
    async (mode) => {
      await fresh();
      const r = (await old.read(0, mode === 'fenced' ? '1' : undefined)) as ReadOk;
      const out = await old.write(writeFrom(r, 3, mode === 'fenced' ? '1' : undefined), mode, 0);
      expect(out.ok).toBe(true);
      const final = await old.finalRead(0);
      expect(final.ledger).toHaveLength(1);
      expect(final.balance).toBe(1003);
    },
  );
});
