import type { EndParams } from '../evidence.ts';
import type { FaultContext, FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import {
  droppedAtNs,
  etcdRoutes,
  firstEtcdDrop,
  MemberReaders,
  noOwnEtcdRoutes,
  readKey,
  type EtcdRoute,
} from '../reply-loss-etcd-acquire/inject.ts';

/** How long the fault waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The call aimed at: a Txn whose success branch deletes (etcd-calls.ts names it so): fencepost's release. */
const RELEASE_CALL = 'KV/Txn delete';
/** A release Txn whose compare held (the key was still the holder's) answers `succeeded`: it deleted the key. */
const DELETED_ANSWER = 'succeeded';
/** The locks whose release is such a Txn (their own recipes). */
export const AIMABLE_LOCKS = ['etcd'];

/**
 * A release reaches etcd and deletes the key; its answer never comes back. Aimed at the next client to enter its
 * critical section: its own proxies in front of every etcd member (framed as gRPC) are armed to drop the answer to its
 * next Txn that deletes and answered `succeeded`, then to reset that connection; all are healed as soon as one
 * dropped (one shot: a retried Txn must reach the server). Right after the drop the key is read on a member: the
 * holder's incarnation (the create revision its Txn compared on) gone is the server's effect; still there is a
 * release that never took effect — a miss.
 *
 * The fault ends (heal) once the holder's release has completed, or after the story wait.
 */
export const replyLossEtcdRelease: FaultExecutor<'reply-loss-etcd-release'> = {
  name: 'reply-loss-etcd-release',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    !servers.etcd
      ? `--lock=${lock} uses no etcd member`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `reply-loss-etcd-release aims at a release by its Txn that deletes the key if it is still the holder's, known for --lock=${AIMABLE_LOCKS.join(', ')} only`,
  unavailable: (env) => replyLossEtcdRelease.refusal(env.servers, env.config.lock) ?? noOwnEtcdRoutes(env),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let routes: EtcdRoute[] = [];
    let release: ReturnType<typeof watchRelease> | undefined;
    const readers = new MemberReaders();
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && etcdRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = etcdRoutes(ctx, s.slot);
        release = watchRelease(journal, s.process);
        for (const r of routes)
          r.proxy.dropNextReply({ command: RELEASE_CALL, replyIs: DELETED_ANSWER, then: 'reset' });
      },
    );
    if (!section || !release) return null;
    const released = release;
    for (const r of routes) readers.warm(r.node); // logged in now: the read after the drop is one round trip
    const outcome: Outcome = { droppedOn: [] };
    const healing = new AbortController();
    const reads = (async () => {
      const first = await firstEtcdDrop(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!first) return false;
      for (const r of routes) r.proxy.heal();
      const { route, drop } = first;
      outcome.droppedOn = [route.node.name];
      outcome.droppedAt = droppedAtNs(ctx, drop);
      Object.assign(outcome, { key: drop.request.key, revision: drop.request.revision });
      if (outcome.key === undefined) return true;
      try {
        const after = await readKey(readers, route.node, outcome.key);
        outcome.read = true;
        if (after) outcome.revisionAfter = after.createRevision;
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      return true;
    })();
    const ready = reads.then((dropped) => (dropped ? released.completed : undefined));
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
        ttlMs: config.ttlMs,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await reads;
        released.stop();
        for (const r of routes) r.proxy.heal();
        readers.close();
        const params = endParams(section, outcome, released.invokeTime());
        return { params, note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  key?: string;
  revision?: string;
  revisionAfter?: string;
  read?: boolean;
  readError?: string;
  droppedAt?: number;
}

/** The holder's next release: its invoke's time stamp, and a promise settled once it completed. */
function watchRelease(journal: FaultContext['journal'], holder: number) {
  let invokeTime: number | undefined;
  const watch = watchFor(journal, (op) => {
    if (op.process !== holder || op.f !== 'release') return false;
    if (op.type === 'invoke') invokeTime ??= op.time;
    return op.type !== 'invoke' && invokeTime !== undefined;
  });
  return { completed: watch.seen, stop: watch.stop, invokeTime: () => invokeTime };
}

function endParams(
  s: { process: number; account: number },
  o: Outcome,
  releaseTime: number | undefined,
): EndParams<'reply-loss-etcd-release'> {
  const params: EndParams<'reply-loss-etcd-release'> = {
    process: s.process,
    account: s.account,
    droppedOn: o.droppedOn,
  };
  if (o.key !== undefined) params.key = o.key;
  if (o.revision !== undefined) params.revision = o.revision;
  if (o.revisionAfter !== undefined) params.revisionAfter = o.revisionAfter;
  if (o.read) params.read = true;
  if (o.readError !== undefined) params.readError = o.readError;
  if (releaseTime !== undefined) params.releaseTime = releaseTime;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `p${process}'s release answer was never dropped (no release seen while armed)`;
  if (!o.read) return `p${process}'s release answer was dropped on ${o.droppedOn.join(', ')}, but the key was not read`;
  const after = o.revisionAfter === undefined ? 'gone' : `at revision ${o.revisionAfter}`;
  return `p${process}'s release of ${o.key} (revision ${o.revision}) was dropped on ${o.droppedOn.join(', ')}; the key was then ${after}`;
}
