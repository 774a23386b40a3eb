import { lockSessionName } from '../../workloads/lock-session-name.ts';
import { BUILTIN_LOCKS, isBuiltinLock } from '../../workloads/lock-names.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import type { CriticalSection } from '../../nemesis/critical-sections.ts';
import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheSection } from '../../nemesis/fault-needs.ts';

/** The built-in locks whose lock lives in a Postgres session (an advisory lock), as each row says. */
const POSTGRES_SESSION_LOCKS = BUILTIN_LOCKS.filter((l) => (LOCK_ROWS[l] as LockRow).postgresSession === true);

/** How long kill-session waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * The server ends the holder's lock session: the next client to enter its critical section (a `read` ok) has the
 * Postgres session that holds its advisory lock terminated (`pg_terminate_backend`, as an administrator, a pooler
 * or a failover would), found by the session's name (workloads/lock-session-name.ts). Postgres frees a session's
 * advisory locks the moment the session ends, so another client can be granted the lock while the holder is still
 * inside its section: whether the holder learns of it before it writes is the lock library's doing (advisory-lock's
 * client has no 'error' listener: the driver's error ends its process). The client process itself is not touched.
 *
 * The terminate is a query from the harness over a superuser session it keeps open (PgNode.warmAdmin), so it lands
 * a few ms after the read: inside the section while --think is longer than that. (Over a fresh connection, SCRAM and
 * all, it came after the holder had released, in both shots of the first run: `nothing was ended`.) A strategy that holds no advisory lock gives the fault nothing to
 * end: the shot records that it found no session (a miss, never a hit).
 */
export const killSession: FaultExecutor<'kill-session'> = {
  name: 'kill-session',
  // Its story: the freed lock granted to another client at once, and the holder's write after its think time.
  needs: { liveOps: true, shotMs: pastTheSection },
  // A built-in lock whose row holds nothing in a Postgres session: there is nothing to end (a shot
  // would only find no session and end the run unknown). A plugin or a foreign lock may: its shots say what they found.
  refusal: (_servers, lock) =>
    isBuiltinLock(lock) && !POSTGRES_SESSION_LOCKS.includes(lock)
      ? `--lock=${lock} holds no lock in a Postgres session, which kill-session ends (its built-in row: ${POSTGRES_SESSION_LOCKS.join(', ')})`
      : null,
  unavailable: (env) =>
    killSession.refusal(env.servers, env.config.lock) ?? (env.cluster.pg ? null : 'the run has no Postgres'),
  async start(ctx) {
    const pg = ctx.cluster.pg;
    if (!pg) return null;
    // Its superuser session opened before the section comes: the terminate must land within the holder's think.
    pg.warmAdmin();
    let strike: Strike = { atIndex: 0, atTime: 0 };
    let ended: Promise<number[]> = Promise.resolve([]);
    const section: CriticalSection | null = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !ctx.clients.clients[s.slot]?.paused && !ctx.clients.clients[s.slot]?.exited,
      (s) => {
        strike = strikeNow(ctx.journal);
        ended = pg.terminateAdvisoryLockSessions(lockSessionName(s.slot));
      },
    );
    if (!section) return null;
    const pids = await ended.catch(() => [] as number[]);
    return {
      targets: [`the lock session of client p${section.process}${pids.length ? ` (backend ${pids.join(', ')})` : ''}`],
      params: {
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        backends: pids,
        // The evidence that it acted: a session holding an advisory lock was there and ended.
        ended: pids.length > 0,
        aim: aimAt(section, strike),
      },
      ...(pids.length ? {} : { note: 'no session of this client held an advisory lock: nothing was ended' }),
      // The window a correct lock needs to hand the freed lock on: one TTL.
      holdMs: ctx.config.ttlMs,
      async heal() {
        return { note: 'nothing to undo: the lock was freed with its session; the client opens new sessions itself' };
      },
    };
  },
};
