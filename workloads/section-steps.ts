/**
 * The four steps of a critical section — acquire, read, write, release — each one invoke and one completion through
 * the session's interpreter (ClientSession.step). The free-running loop (client-loop.ts) runs them in order with a
 * think time between the read and the write; a driven client (driven-client.ts) runs each on command. One copy of
 * what each step records, so a scripted scenario's history reads exactly like a free run's.
 */
import type { AcquireOk, ReadOk, WriteValue } from '../history/bank.ts';
import type { BankResource, ClientSession } from './client-loop.ts';
import type { Watchdog } from './lease-watchdog.ts';
import type { Lease, LockClient } from './strategy.ts';

/** acquire: the lease, or undefined (not acquired: `fail`; unknown: `info`, and the session moved on). */
export function acquireStep(session: ClientSession, l: LockClient, account: number): Promise<Lease | undefined> {
  return session.step<Lease>(
    'acquire',
    { account },
    () => l.acquire(`account-${account}`),
    (lz) => ({
      type: 'ok',
      value: { account, token: lz.token, validityMs: lz.validityMs, attempts: lz.attempts } satisfies AcquireOk,
    }),
  );
}

/** read under a held lease (fenced: with its token, which a newer one makes stale); undefined unless `ok`. */
export async function readStep(
  session: ClientSession,
  r: BankResource,
  lease: Lease,
  account: number,
): Promise<ReadOk | undefined> {
  const fenceToken = session.loop.spec.mode === 'fenced' ? lease.token : undefined;
  const answer = await session.step(
    'read',
    { account, token: fenceToken },
    () => r.read(account, fenceToken),
    (v) =>
      'stale' in v
        ? { type: 'fail', value: { account, token: fenceToken }, error: 'stale-token' }
        : { type: 'ok', value: v },
  );
  return answer && !('stale' in answer) ? answer : undefined;
}

/** The write a read leads to: its balance plus a seeded delta (one draw from the client's random stream). */
export function writeOf(session: ClientSession, read: ReadOk, lease: Lease): WriteValue {
  const delta = 1 + Math.floor(session.random() * 100);
  return {
    account: read.account,
    from: read.balance,
    to: read.balance + delta,
    delta,
    token: lease.token,
    basedOn: read.lastWriteId,
    version: read.version,
  };
}

/** write `w`; skipped (a `fail`, lock-lost) once the watchdog lost the lease: the history says why it was not sent. */
export async function writeStep(
  session: ClientSession,
  r: BankResource,
  w: WriteValue,
  watchdog: Watchdog,
): Promise<void> {
  if (watchdog.lost()) {
    session.op({ type: 'invoke', f: 'write', value: w });
    session.op({ type: 'fail', f: 'write', value: w, error: 'lock-lost' });
    return;
  }
  const { mode } = session.loop.spec;
  await session.step(
    'write',
    w,
    () => r.write(w, mode, session.pid()),
    (res) =>
      res.ok ? { type: 'ok', value: { ...w, writeId: res.writeId } } : { type: 'fail', value: w, error: res.reason },
  );
}

/** release the lease (`released: false` when it was no longer ours: expired, taken over). */
export async function releaseStep(session: ClientSession, l: LockClient, lease: Lease, account: number): Promise<void> {
  await session.step(
    'release',
    { account, token: lease.token },
    () => l.release(lease),
    (released) => ({ type: 'ok', value: { account, released } }),
  );
}
