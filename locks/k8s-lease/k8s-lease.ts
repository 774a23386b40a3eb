import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import { CALL_DEADLINE_MS, etcdClientFor } from '../etcd/etcd-client.ts';
import {
  LockNotAcquired,
  seededRandom,
  type Lease,
  type LockClient,
  type LockContext,
  type LockStrategy,
} from '../strategy.ts';
import { electionTimings, jittered, type ElectionTimings } from './election-record.ts';
import { EtcdLeaseLock } from './etcd-lease-lock.ts';
import { LeaderElector } from './leader-elector.ts';
import { Leadership } from './leadership.ts';

/**
 * `--lock=k8s-lease`: an emulation of client-go's leader election algorithm, not the Kubernetes API server. Each
 * account is one Lease — a JSON record in etcd (election-record.ts) whose compare-and-swap is the key's mod revision,
 * as the API server's resourceVersion is client-go's (etcd-lease-lock.ts) — and each client process runs client-go's
 * LeaderElector on it (kubernetes/client-go at 32ce75a7, tools/leaderelection/leaderelection.go), one per account,
 * kept across that account's acquires as a long-lived elector keeps its observation:
 *
 * - acquire is `acquire()`: tryAcquireOrRenew at once, then every RetryPeriod × (1 + 1.2 × random) (JitterUntil) until
 *   it succeeds or the harness's acquire budget runs out. A candidate takes a held lease only when the record's bytes
 *   have not changed for the record's lease duration on the candidate's own monotonic clock (observedTime);
 * - while it holds, `renew()` runs (leadership.ts): a renewal at once and every RetryPeriod, and a holder whose
 *   renewals fail for RenewDeadline stops leading. The section runs while it leads (`stillHeld`: client-go's
 *   OnStartedLeading context), so the library renews itself and --watchdog does not apply;
 * - release is ReleaseOnCancel, the option client-go's users opt into to hand over at once: the empty holder with a 1 s
 *   lease, written when the elector's last observation says it leads. Without it a successor waits LeaseDuration;
 * - the token is `leaderTransitions`, which tryAcquireOrRenew raises by one whenever the holder changes, through the
 *   compare-and-swap on the version it read: each new holder's is larger than every earlier holder's on that account.
 *   A holder that takes back a record still naming it (it stepped down and nobody took it) keeps its number, so it is
 *   strictly monotonic from holder to holder, not from acquire to acquire of one process — a fence compares with ≥.
 *
 * Timings: client-go's defaults (15 s / 10 s / 2 s) scaled to the run's TTL — LeaseDuration = TTL, RenewDeadline = ⅔
 * TTL, RetryPeriod = TTL / 7.5 (TTL 2 s: 2000 / 1333 / 267 ms), checked as NewLeaderElector checks them.
 *
 * client-go's own words on what this guarantees: "This implementation does not guarantee that only one client is
 * acting as a leader (a.k.a. fencing)" — a holder paused past LeaseDuration resumes leading until a renewal round has
 * failed for RenewDeadline — and its tolerance is to clock *rate*, not offset: wall-clock times in the record are
 * never compared, only their change.
 */

/** The record's key for an account: under the run's prefix on a target, else under `fencepost/`. */
export const leaseKeyFor = (key: string, keyPrefix = 'fencepost/'): string => `${keyPrefix}k8s-lease/${key}`;

interface Held {
  elector: LeaderElector;
  term: Leadership;
}

class K8sLeaseClient implements LockClient {
  private readonly electors = new Map<string, LeaderElector>();
  private readonly terms = new Set<Leadership>();
  private readonly random: () => number;
  /** client-go's identity is per process (hostname + a uuid, as most controllers set it): a new process is a new one. */
  private readonly identity: string;

  constructor(
    private readonly ctx: LockContext,
    private readonly client: Etcd3,
    private readonly timings: ElectionTimings,
  ) {
    this.random = seededRandom(ctx.seed);
    this.identity = `fencepost-client-${ctx.client}_${process.pid}-${randomBytes(4).toString('hex')}`;
  }

  private electorFor(key: string): LeaderElector {
    let e = this.electors.get(key);
    if (!e) {
      e = new LeaderElector(
        new EtcdLeaseLock(this.client, leaseKeyFor(key, this.ctx.keyPrefix)),
        this.identity,
        this.timings,
      );
      this.electors.set(key, e);
    }
    return e;
  }

  async acquire(key: string): Promise<Lease> {
    const elector = this.electorFor(key);
    const deadline = performance.now() + this.ctx.acquireTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      const attempt = await elector.tryAcquireOrRenew(Math.min(deadline, performance.now() + CALL_DEADLINE_MS));
      if (attempt === 'held') {
        const term = new Leadership(elector);
        this.terms.add(term);
        const token = String(elector.record!.leaderTransitions);
        return { key, token, attempts, handle: { elector, term } satisfies Held };
      }
      const waitMs = jittered(this.timings.retryPeriodMs, this.random());
      if (performance.now() + waitMs < deadline) {
        await sleep(waitMs);
        continue;
      }
      const what = `k8s-lease: ${leaseKeyFor(key, this.ctx.keyPrefix)}`;
      // The last try's write may have landed, or no server answered it: not a definite no.
      if (attempt === 'unknown') throw new Error(`${what}: no answer from etcd to the last of ${attempts} tries`);
      throw new LockNotAcquired(`${what} held by another elector after ${attempts} tries`, attempts);
    }
  }

  stillHeld(lease: Lease): boolean {
    return (lease.handle as Held).term.leading;
  }

  async release(lease: Lease): Promise<boolean> {
    const { term } = lease.handle as Held;
    const end = await term.stop();
    this.terms.delete(term);
    // It had stepped down by itself: the lock was no longer ours when the caller gave it up.
    if (!end.byCaller) return false;
    if (typeof end.release === 'object') throw end.release.failed;
    return end.release === 'released';
  }

  async close(): Promise<void> {
    for (const term of this.terms) term.abandon();
    this.terms.clear();
    this.client.close();
  }
}

const k8sLease: LockStrategy = {
  name: 'k8s-lease',
  needs: ['etcd'],
  servers: { etcd: 3 },
  token: 'monotonic',
  // The elector renews the lease itself while it leads: --watchdog has nothing to add.
  renews: false,
  // A candidate waits LeaseDuration (the TTL) on its own clock after it saw the record change, and the holder's acquire
  // changed it at or after its invoke: invoke + TTL, whatever the renewals add (they are outside the history).
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'kill', 'pause-node', 'partition'],
  async connect(ctx) {
    return new K8sLeaseClient(ctx, etcdClientFor(ctx), electionTimings(ctx.ttlMs));
  },
};

export default k8sLease;
