import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import type { ChurnRound } from './facts.ts';
import { leaderOf, lockServerKind, lockServers, type LockServer } from '../../nemesis/lock-servers.ts';

/** A round stops the leader until another member answers as leader, or this long at most. */
export const ROUND_MAX_MS = 5_000;
/** How often a round asks the others whether one of them leads now. */
const POLL_MS = 100;
/** After a resume, the ensemble gets this long to settle before the next round asks who leads. */
const SETTLE_MS = 500;

/**
 * Leader churn: for `--pause` ms, SIGSTOP the current etcd or ZooKeeper leader until another member answers as
 * leader (or `ROUND_MAX_MS`), SIGCONT it, let the ensemble settle, and again with whoever leads now — an election
 * after another, the clients' sessions and leases carried across each. Pause rather than kill: a stopped leader
 * comes back with its state and its old term, the case where a lock's server side must fence its own stale leader.
 * The hit is a leader change observed (`rounds` of the end record; checkers/fault-hits.ts).
 */
export const leaderChurn: FaultExecutor<'leader-churn'> = {
  name: 'leader-churn',
  needs: { onTarget: { adapter: 'pause' } },
  refusal: (servers, lock) => {
    const kind = lockServerKind(servers);
    return kind === 'etcd' || kind === 'zk'
      ? null
      : `--lock=${lock} has no leader to churn: leader-churn stops the etcd or ZooKeeper leader, and its servers elect none`;
  },
  unavailable: (env) => leaderChurn.refusal(env.servers, env.config.lock),
  async start(ctx) {
    const servers = lockServers(ctx.servers, ctx.cluster, null);
    const live = () => servers.filter((s) => s.node.running && !s.node.paused);
    const first = await leaderOf(live());
    if (!first || ctx.signal.aborted) return null;
    const rounds: ChurnRound[] = [];
    const stop = new AbortController();
    let current: LockServer | null = first;
    await first.node.pause();
    const churn = (async () => {
      while (current && !stop.signal.aborted) {
        const stopped: LockServer = current;
        const t0 = performance.now();
        let next: LockServer | null = null;
        while (!next && !stop.signal.aborted && performance.now() - t0 < ROUND_MAX_MS) {
          await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => {});
          if (!stop.signal.aborted) next = await leaderOf(live());
        }
        rounds.push({
          stopped: stopped.node.name,
          next: next?.node.name ?? null,
          stoppedMs: Math.round(performance.now() - t0),
          ...(!next && stop.signal.aborted ? { cut: true as const } : {}),
        });
        await stopped.node.resume();
        ctx.log(
          `leader-churn: ${stopped.node.name} stopped ${rounds.at(-1)!.stoppedMs} ms; ${next ? `${next.node.name} leads` : 'no other leader'}`,
        );
        await sleep(SETTLE_MS, undefined, { signal: stop.signal }).catch(() => {});
        if (stop.signal.aborted) break;
        current = await leaderOf(live());
        if (current && !stop.signal.aborted) await current.node.pause();
        else current = null;
      }
    })();
    return {
      targets: [`${first.node.kind} leader ${first.node.name}`],
      params: { durationMs: ctx.config.pauseMs, pids: first.node.pids(), roundMaxMs: ROUND_MAX_MS },
      holdMs: ctx.config.pauseMs,
      async heal() {
        stop.abort();
        await churn;
        // Only the member this fault stopped: another fault may have paused one of its own.
        if (current?.node.paused) await current.node.resume();
        const changes = rounds.filter((r) => r.next !== null && r.next !== r.stopped).length;
        return { params: { rounds, leaderChanges: changes } };
      },
    };
  },
};
