import type { OpInput } from '../history/op.ts';
import { watchdogProcess } from '../history/process-role.ts';
import { runTiming } from '../common/run-timing.ts';
import type { ClientSession } from './client-loop.ts';
import type { Lease, LockClient } from '../locks/strategy.ts';

/** A held lease's renewer (--watchdog), as the section's steps see it. */
export interface Watchdog {
  /** A renewal failed: the lease is gone, the write must not be sent. */
  lost(): boolean;
  stop(): void;
}

/**
 * Redisson-style watchdog: renew every TTL/3 (runTiming's watchdogEveryMs) as a process of its own beside the
 * client's; once a renewal fails the lease is lost and stays lost.
 */
export function startWatchdog(session: ClientSession, l: LockClient, lease: Lease, account: number): Watchdog {
  const { loop } = session;
  const wdProcess = watchdogProcess(session.pid());
  const every = runTiming(loop.spec.ctx).watchdogEveryMs;
  const send = (op: Omit<OpInput, 'process'>, at = session.now(), beforeCall = false) =>
    loop.emit({ ...op, process: wdProcess }, at, beforeCall);
  let lost = false;
  let stopTimer = () => {};
  const tick = () => {
    stopTimer = loop.clock.setTimer(every, tick);
    if (lost) return;
    // As a step: stamped and sent before the call, completed at the settle time.
    send({ type: 'invoke', f: 'renew', value: { account, token: lease.token } }, session.now(), true);
    const { settled, settledAt } = session.call(() => l.renew!(lease));
    settled.then(
      (ok) => {
        if (!ok) lost = true;
        send(
          {
            type: ok ? 'ok' : 'fail',
            f: 'renew',
            // The validity a renewal reports bounds the promise it extends (checkers/promise/).
            value: { account, ...(ok && lease.validityMs !== undefined ? { validityMs: lease.validityMs } : {}) },
            ...(ok ? {} : { error: 'lock-lost' }),
          },
          settledAt(),
        );
      },
      (err) => {
        lost = true;
        send({ type: 'fail', f: 'renew', value: { account }, error: (err as Error).message }, settledAt());
      },
    );
  };
  stopTimer = loop.clock.setTimer(every, tick);
  return { lost: () => lost, stop: () => stopTimer() };
}

export const NO_WATCHDOG: Watchdog = { lost: () => false, stop: () => {} };

/** The section's watchdog: renewing when the run asked for one (--watchdog) and the lock can renew, else none. */
export function watchdogFor(session: ClientSession, l: LockClient, lease: Lease, account: number): Watchdog {
  return session.loop.spec.watchdog && l.renew ? startWatchdog(session, l, lease, account) : NO_WATCHDOG;
}
