/**
 * The four steps of a critical section — acquire, read, write, release — each one invoke and one completion through
 * the session's interpreter (ClientSession.step). The free-running loop (client-loop.ts) runs them in order with a
 * think time between the read and the write; a driven client (driven-client.ts) runs each on command. One copy of
 * what each step records, so a scripted scenario's history reads exactly like a free run's.
 */
import type { AcquireOk, ReadOk, WriteValue } from '../history/bank.ts';
import type { BankResource, ClientSession } from './client-loop.ts';
import type { Watchdog } from './lease-watchdog.ts';
import type { Lease, LockClient } from '../locks/strategy.ts';

/** acquire: the lease, or undefined (not acquired: `fail`; unknown: `info`, and the session moved on). */
export function acquireStep(session: ClientSession, l: LockClient, account: number): Promise<Lease | undefined> {
  return session.step<Lease>(
    'acquire',
    { account },
    () => l.acquire(`account-${account}`),
    (lz) => ({
      type: 'ok',
      value: {
        account,
        token: lz.token,
        validityMs: lz.validityMs,
        attempts: lz.attempts,
        ...(lz.evidence ? { evidence: lz.evidence } : {}),
      } satisfies AcquireOk,
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

/**
 * think, then write what `read` leads to. The write is drawn before the think, not after: nothing else draws from the
 * client's stream meanwhile, so it is the value it always was — and it is known while the holder thinks, for a
 * library that ends the process then (ClientSession.pendingWrite: recorded as lock-lost, never sent).
 */
export async function thinkThenWrite(
  session: ClientSession,
  l: LockClient,
  r: BankResource,
  read: ReadOk,
  lease: Lease,
  watchdog: Watchdog,
): Promise<void> {
  const w = writeOf(session, read, lease);
  session.pendingWrite = w;
  await session.sleep(session.loop.spec.thinkMs);
  // Abandoned meanwhile (its library is ending the process): already recorded as lock-lost, never sent.
  if (session.pendingWrite !== w) return;
  session.pendingWrite = null;
  await writeStep(session, l, r, w, lease, watchdog);
}

/**
 * write `w`; skipped (a `fail`, lock-lost) once the harness's watchdog failed a renewal, or the library says it lost
 * the lock (its README's check before acting: signal.aborted, isAcquired): the history says why it was not sent.
 */
export async function writeStep(
  session: ClientSession,
  l: LockClient,
  r: BankResource,
  w: WriteValue,
  lease: Lease,
  watchdog: Watchdog,
): Promise<void> {
  if (watchdog.lost() || l.stillHeld?.(lease) === false) {
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
