import type { Op } from '../../history/op.ts';
import type { EndParams } from '../evidence.ts';
import { clientRoutes } from '../../nemesis/client-routes.ts';
import type { FaultContext, FaultExecutor } from '../../nemesis/fault.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { pastTheHold, pastTheLease } from '../../nemesis/fault-needs.ts';
import { OtherClientWrite } from '../judging/story-steps.ts';
import { waitUntilAged, watchFor } from '../../nemesis/story-watch.ts';

/** How long delay-write waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/** The held process's write: its invoke (sent into the hold) and its completion, if one came during the hold. */
interface HeldWrite {
  invoke?: Op;
  completed?: Op;
}

/**
 * The third of Kleppmann's failures: the holder's write leaves while its lease is valid and arrives after the
 * lease ran out and another client held the lock and wrote. The next client to enter its critical section (a
 * `read` ok) has everything it sends held in flight — by its own proxies (client-routes.ts), not dropped — for
 * `--pause` ms (default 1.5 × TTL), then delivered in order. Unlike pause-holder the client keeps running: it
 * thinks, sends its write and waits for the answer (no timeout of ours is that short: pg has no statement or
 * query timeout set, the client's step timeout is 3 × TTL + 3 s).
 *
 * Everything it sends is held, not only the write, because that is what a slow network does — and because a
 * client that keeps its lease alive (etcd's keep-alives, ZooKeeper's heartbeats) would otherwise renew the lease
 * throughout and no other client could take the lock: the delayed write would be late but harmless. A TTL lock
 * without renewal (Redis, Redlock) expires either way.
 *
 * Aimed like pause-holder: the hold starts synchronously in the journal listener that sees the read, while the
 * client still sleeps its think time, so the write is always sent into the hold. The hold ends once its story has
 * taken the step it waits for — another client acquired the account and committed a write, and the held write has
 * been in the hold for at least a TTL — at most `--pause` ms (default 4 × TTL). The `end` record says whether the
 * client's write was invoked while held, its bytes sat in the Postgres route and it had not completed (`hit`), with
 * the process, account, the write's time stamp and how long it was held; the story's judge reads the rest from the
 * history (faults/delay-write/judge.ts).
 */
export const delayWrite: FaultExecutor<'delay-write'> = {
  name: 'delay-write',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, minRunMs: pastTheHold, shotMs: pastTheLease },
  refusal: () => null,
  unavailable: (env) =>
    clientRoutes(env.proxies, 0).has('pg') ? null : 'the clients do not reach Postgres through proxies of their own',
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let pid = 0;
    let routes = new Map<string, TcpProxy>();
    let heldSince = 0;
    let heldAtTime = 0;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused &&
        !clients.clients[s.slot]?.exited &&
        clientRoutes(ctx.proxies, s.slot).has('pg'),
      (s) => {
        pid = clients.clients[s.slot].pid;
        routes = clientRoutes(ctx.proxies, s.slot);
        for (const proxy of routes.values()) proxy.holdToServer();
        heldSince = performance.now();
        heldAtTime = journal.sinceOrigin(process.hrtime.bigint());
      },
    );
    if (!section) return null;

    const { write, writeSent, unsubscribe } = watchHeldWrite(journal, section.process);
    // The story's next step: another client's grant and committed write during the hold, with the held write a TTL
    // old by then (its lease ran out while it was in flight).
    const other = new OtherClientWrite(section.process, section.account, heldAtTime);
    const watch = watchFor(journal, (op) => other.observe(op));
    const ready = (async () => {
      await watch.seen;
      const invoke = await writeSent;
      await waitUntilAged(() => journal.sinceOrigin(process.hrtime.bigint()), invoke.time, config.ttlMs, ctx.signal);
    })();

    return {
      targets: [`client p${section.process} (pid ${pid}) → ${[...routes.keys()].join(', ')}`],
      params: {
        maxMs: config.storyWaitMs,
        // When the hold began, on the history's clock: the story's other client must have acquired after it.
        heldAtTime,
        ttlMs: config.ttlMs,
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        unsubscribe();
        watch.stop();
        const healedAt = performance.now();
        // On the history's clock: the write's invoke carries the client's own stamp, and may reach the harness a
        // moment after it (a client holds an invoke up to 10 ms for its completion: workloads/op-outbox.ts).
        const healedAtNs = journal.sinceOrigin(process.hrtime.bigint());
        const heldBytes: Record<string, number> = {};
        for (const [name, proxy] of routes) heldBytes[name] = proxy.counters().queuedToServer;
        for (const proxy of routes.values()) proxy.heal();
        const params = holdOutcome(section, write, heldBytes, {
          heldMs: Math.round(healedAt - heldSince),
          healedAtNs,
          cutShort: ctx.signal.aborted,
        });
        return {
          params,
          note: healNote(section.process, write, params.hit, params.writeHeldMs),
        };
      },
    };
  },
};

/**
 * The held process's write, as the harness sees it: invoked while held, and whether it completed meanwhile (a
 * --watchdog client that lost its lease fails the write without sending it; a step timeout gives up on it).
 */
function watchHeldWrite(
  journal: FaultContext['journal'],
  held: number,
): { write: HeldWrite; writeSent: Promise<Op>; unsubscribe: () => void } {
  const write: HeldWrite = {};
  let sent!: (invoke: Op) => void;
  const writeSent = new Promise<Op>((r) => (sent = r));
  const unsubscribe = journal.onOp((op) => {
    if (op.process !== held || op.f !== 'write') return;
    if (op.type === 'invoke' && !write.invoke) {
      write.invoke = op;
      sent(op);
    } else if (op.type !== 'invoke' && write.invoke && !write.completed) write.completed = op;
  });
  return { write, writeSent, unsubscribe };
}

/** The `end` record's params: whether the hold hit, the bytes it held, and the held write's timing. */
function holdOutcome(
  section: { process: number; account: number },
  write: HeldWrite,
  heldBytes: Record<string, number>,
  at: { heldMs: number; healedAtNs: number; cutShort: boolean },
): EndParams<'delay-write'> {
  // A write that timed out while held (`info`, a --pause beyond the step timeout) still counts: its bytes are
  // delivered now and may commit — that is what an unknown outcome means.
  const hit =
    write.invoke !== undefined &&
    (write.completed === undefined || write.completed.type === 'info') &&
    (heldBytes.pg ?? 0) > 0;
  const params: EndParams<'delay-write'> = {
    hit,
    process: section.process,
    account: section.account,
    heldMs: at.heldMs,
    heldBytes,
  };
  // The run ended during the hold: the write was delayed, but maybe for less than the TTL.
  if (at.cutShort) params.cutShort = true;
  if (write.invoke) {
    // The write's own stamp names it in the history (with the process) whatever its order; the index is the
    // journal's arrival position, which the time-order seal after the run renumbers (history/time-order.ts).
    params.writeTime = write.invoke.time;
    params.writeIndex = write.invoke.index;
    // From the moment the client invoked the write (its bytes left for the proxy) to their release.
    params.writeHeldMs = Math.round((at.healedAtNs - write.invoke.time) / 1e6);
  }
  return params;
}

/** The `end` record's note: what became of the held process's write. */
function healNote(process: number, write: HeldWrite, hit: boolean, writeHeldMs: number | undefined): string {
  const p = `p${process}`;
  if (hit) {
    const gaveUp = write.completed ? ` (the client gave up on it: ${write.completed.error})` : '';
    return `${p}'s write (invoked at ${(write.invoke!.time / 1e6).toFixed(1)} ms) held ${writeHeldMs} ms, now delivered${gaveUp}`;
  }
  if (!write.invoke) return `${p} sent no write while held`;
  const error = write.completed?.error ? ` ${write.completed.error}` : '';
  return `${p}'s write completed during the hold (${write.completed?.type}${error}): not delayed`;
}
