/**
 * A client that takes its steps on command (a scripted scenario: scenario/scenario-run.ts) instead of running the
 * free loop: the harness names a step — acquire, read, write, release — and the client runs exactly that one through
 * the same interpreter and step code as the free loop (section-steps.ts), so the history, the checkers and the
 * report are those of any run. Between steps it holds its section's state (the lease, the read its write is based
 * on), as a real client holds them between two lines of its code; a step that state does not allow (a write with no
 * read) is refused and recorded nowhere: the harness counts the script as not followed.
 */
import type { ReadOk } from '../history/bank.ts';
import { ClientSession, type ClientLoop } from './client-loop.ts';
import { watchdogFor, type Watchdog } from './lease-watchdog.ts';
import { acquireStep, readStep, releaseStep, writeOf, writeStep } from './section-steps.ts';
import type { Lease, LockClient } from '../locks/strategy.ts';

/** The steps a driven client takes: the four of a critical section. */
export const DRIVEN_STEPS = ['acquire', 'read', 'write', 'release'] as const;
export type DrivenStepName = (typeof DRIVEN_STEPS)[number];

export interface DrivenCommand {
  /** The harness's number for the command: a refusal names it. */
  seq: number;
  f: DrivenStepName;
}

export interface DrivenLoop extends ClientLoop {
  /** The account every step acts on. */
  account: number;
  /** The next command, or null once the client is told to stop. */
  nextStep(): Promise<DrivenCommand | null>;
  /** Connected to its lock and its resource: ready for its first step. */
  waiting(): void;
  /** A command its state does not allow, and why (nothing was invoked). */
  refused(seq: number, reason: string): void;
}

/** The section a driven client is in between steps: the lease it was granted, and the read its write will use. */
interface Held {
  lock: LockClient;
  lease: Lease;
  watchdog: Watchdog;
  read?: ReadOk;
}

export async function runDrivenClient(loop: DrivenLoop): Promise<void> {
  const session = new ClientSession(loop);
  loop.onSection?.(() => session.abandonSection());
  let held: Held | null = null;
  await session.connect();
  if (!loop.stopping()) loop.waiting();
  for (let cmd = await loop.nextStep(); cmd; cmd = await loop.nextStep()) {
    // After an unknown outcome the session abandoned its connections, and the lease with them (Jepsen's rule).
    if (held && held.lock !== session.conn.lock) {
      held.watchdog.stop();
      held = null;
    }
    await session.connect();
    const { lock: l, resource: r } = session.conn;
    if (!l || !r) break; // told to stop while connecting
    const result = await drivenStep(session, { l, r, account: loop.account }, held, cmd.f);
    if (typeof result === 'string') loop.refused(cmd.seq, result);
    else held = result;
  }
  held?.watchdog.stop();
  const { lock: l, resource: r } = session.conn;
  await Promise.all([l?.close().catch(() => {}), r?.close().catch(() => {})]);
}

/** One commanded step: the section it leaves the client in, or why the step was refused. */
async function drivenStep(
  session: ClientSession,
  on: { l: LockClient; r: Parameters<typeof readStep>[1]; account: number },
  held: Held | null,
  f: DrivenStepName,
): Promise<Held | null | string> {
  const { l, r, account } = on;
  const who = `client ${session.loop.spec.slot}`;
  if (f === 'acquire') {
    if (held) return `${who} already holds account ${account}: it releases first`;
    const lease = await acquireStep(session, l, account);
    return lease ? { lock: l, lease, watchdog: watchdogFor(session, l, lease, account) } : null;
  }
  if (!held)
    return `${who} holds no lease on account ${account} (not granted, released, or abandoned after an unknown outcome)`;
  if (f === 'read') return { ...held, read: await readStep(session, r, held.lease, account) };
  if (f === 'write') {
    if (!held.read) return `${who} has no read of account ${account} since its acquire to base a write on`;
    await writeStep(session, l, r, writeOf(session, held.read, held.lease), held.lease, held.watchdog);
    return { ...held, read: undefined };
  }
  held.watchdog.stop();
  await releaseStep(session, l, held.lease, account);
  return null;
}
