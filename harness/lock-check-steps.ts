/**
 * The lock-check's contract, step by step, against a started cluster: connect, acquire, a second process refused
 * while the first holds the key, release and hand-over (a larger token when it declares tokens), renew, an
 * unreachable server answered with `error`, and close. harness/lock-check-command.ts boots the cluster and prints.
 */
import type { Cluster } from '../cluster/cluster.ts';
import { CLI } from '../common/cli-name.ts';
import type { PidRegistry } from '../common/pid-registry.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import { LockCgroups } from '../workloads/foreign/lock-cgroups.ts';
import { LockProcess } from '../workloads/foreign/lock-process.ts';
import { ACQUIRE_GRACE_MS, type ForeignEndpoints, type ForeignReply } from '../workloads/foreign/protocol.ts';
import { lockSessionName } from '../workloads/lock-session-name.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { LockRow } from '../locks/lock-row.ts';
import { postgresUrl } from './client-specs.ts';
import { cutLine, masked, STDERR_LINES_KEPT, type LockCheckStep } from './lock-check-transcript.ts';

/** Long enough that no lease expires while the check runs (nothing renews it between steps). */
export const CHECK_TTL_MS = 10_000;
/** How long a refused acquire may wait before it says not-acquired: the refusal step waits this long at most. */
export const CHECK_ACQUIRE_TIMEOUT_MS = 2_000;
/** Any other reply's limit. */
export const CHECK_REPLY_MS = 5_000;

/**
 * How long a refused acquire may take: the check's budget, or — for a row whose busy acquire says no only after
 * waiting out the lease it read (LockRow.busyAcquireWaits) — that many of the check's leases on top of it.
 */
export function checkAcquireBudgetMs(busyWaits?: LockRow['busyAcquireWaits']): number {
  return CHECK_ACQUIRE_TIMEOUT_MS + (busyWaits ? busyWaits.leases * CHECK_TTL_MS : 0);
}

class StepFailed extends Error {}

function endpointsOf(
  cluster: Cluster,
  portOf: (name: string, port: number) => number,
  client: number,
): ForeignEndpoints {
  const { pg, pgbouncer, dynamodb } = cluster;
  return {
    ...(pg
      ? {
          postgresUrl: postgresUrl(
            { ...pg.connectionConfig(), port: portOf(pg.name, pg.port) },
            lockSessionName(client),
          ),
        }
      : {}),
    ...(pgbouncer
      ? {
          pgbouncerUrl: postgresUrl(
            { ...pgbouncer.connectionConfig(), port: portOf(pgbouncer.name, pgbouncer.port) },
            lockSessionName(client),
          ),
        }
      : {}),
    ...(dynamodb
      ? {
          dynamodb: {
            ...dynamodb.clientConfig(),
            endpoint: `http://127.0.0.1:${portOf(dynamodb.name, dynamodb.port)}`,
          },
        }
      : {}),
    redis: cluster.redis.map((r) => ({
      host: '127.0.0.1',
      port: portOf(r.name, r.port),
      password: cluster.credentials.redis,
    })),
    etcd: cluster.etcd.map((e) => `http://127.0.0.1:${portOf(e.name, e.port)}`),
    ...(cluster.etcd[0] ? { etcdAuth: cluster.etcd[0].userAuth } : {}),
    zookeeper: cluster.zk.map((z) => `127.0.0.1:${portOf(z.name, z.port)}`).join(','),
    ...(cluster.zk[0] ? { zookeeperAuth: cluster.zk[0].userAuth } : {}),
  };
}

/** The contract's steps against a started cluster. Every process it starts is killed before it returns. */
export async function runLockCheck(
  strategy: ResolvedStrategy,
  cluster: Cluster,
  shutdown: Shutdown,
  pids: PidRegistry,
  runDir: string,
  busyWaits?: LockRow['busyAcquireWaits'],
): Promise<LockCheckStep[]> {
  // Each process's whole tree in a cgroup of the check's (or its own process group): nothing it forks outlives it.
  const cgroups = LockCgroups.create(runDir, pids.dir);
  const check = new LockCheck(strategy, cluster, pids, typeof cgroups === 'string' ? null : cgroups, busyWaits);
  const cleanup = shutdown.add('stop the lock processes', () => check.stopAll());
  try {
    const key = 'account-0';
    const held = await check.holding(key);
    await check.handOver(key, held);
    if (held.connected) await check.unreachable();
    else check.skip('an unreachable server is an error', 'connect failed');
    await check.closeAll(held);
  } finally {
    // The last step keeps what its processes write until they are gone: a line on stderr written just before (or
    // right after) a reply may be read after the reply, and was dropped when the step was cleared first (CI's
    // echo-password check lost its line that way: read 1 ms after the reply, 11 ms before the exit).
    await cleanup.run();
    check.current = null;
  }
  return check.steps;
}

/** What the first steps left: A connected and holding (with its token), B connected. */
interface Holding {
  connected: boolean;
  heldA: boolean;
  connectedB: boolean;
  a: LockProcess | null;
  b: LockProcess | null;
  tokenA: string | undefined;
}

/** One lock-check: its steps so far, the processes it started (A, B, C) and the proxies that cut C's servers. */
class LockCheck {
  readonly steps: LockCheckStep[] = [];
  current: LockCheckStep | null = null;
  private readonly procs: LockProcess[] = [];
  private readonly proxies: TcpProxy[] = [];
  private readonly cmd: NonNullable<ResolvedStrategy['foreign']>;
  /** The run's passwords, masked in every transcript line whatever their form. */
  private readonly secrets: string[];
  /** How long a refused acquire may take to say no (checkAcquireBudgetMs). */
  private readonly acquireBudgetMs: number;

  constructor(
    private readonly strategy: ResolvedStrategy,
    private readonly cluster: Cluster,
    private readonly pids: PidRegistry,
    private readonly cgroups: LockCgroups | null,
    private readonly busyWaits?: LockRow['busyAcquireWaits'],
  ) {
    this.cmd = strategy.foreign!;
    this.acquireBudgetMs = checkAcquireBudgetMs(busyWaits);
    this.secrets = Object.values(cluster.credentials);
  }

  /** Kill every process (its whole tree) and wait for each, bounded: a process that cannot die holds nothing up. */
  async stopAll(): Promise<void> {
    for (const p of this.procs) p.kill();
    // Drained too: a line a process wrote just before it died is read before the transcript prints (its pipe is
    // read to the end, bounded), as the last step keeps the lines that arrive meanwhile (runLockCheck).
    await Promise.all([
      ...this.procs.map((p) => p.exitedAndDrainedWithin(5000)),
      ...this.proxies.map((p) => p.close()),
    ]);
    const left = this.cgroups?.dispose(this.pids.dir);
    if (left) console.error(`fencepost: ${left}; \`${CLI} cleanup\` removes it once this command is gone`);
  }

  /** A transcript line of the current step, masked and cut; a process's stderr keeps only its last lines. */
  private note(label: string, line: string, stderr = false): void {
    const step = this.current;
    if (!step) return;
    step.exchange.push(`${label} ${cutLine(masked(line, this.secrets))}`);
    if (!stderr) return;
    const prefix = `${label} ! `;
    const mine = step.exchange.filter((l) => l.startsWith(prefix));
    if (mine.length <= STDERR_LINES_KEPT) return;
    step.exchange.splice(step.exchange.indexOf(mine[0]), 1);
    step.dropped = step.dropped ?? {};
    step.dropped[label] = (step.dropped[label] ?? 0) + 1;
  }

  /** Start a lock process and connect it; a connect that is not `ok` fails the step. */
  private async start(label: string, portOf: (name: string, port: number) => number): Promise<LockProcess> {
    const endpoints = endpointsOf(this.cluster, portOf, this.procs.length);
    const events = {
      exchange: (dir: '→' | '←', line: string) => this.note(label, `${dir} ${line}`),
      stderr: (line: string) => this.note(label, `! ${line}`, true),
      spawned: (pid: number) =>
        this.pids.add({ name: `lock-check-${label}`, pid, marker: this.cmd.cwd, killGroup: true }),
      exited: ({ code, signal, expected }: { code: number | null; signal: string | null; expected: boolean }) => {
        this.pids.remove(`lock-check-${label}`);
        if (!expected) this.note(label, `exited on its own with ${signal ? `signal ${signal}` : `code ${code}`}`);
      },
    };
    const p = await LockProcess.start(this.cmd, events, { cgroupParent: this.cgroups?.dir ?? null });
    this.procs.push(p);
    const r = await p.request(
      {
        op: 'connect',
        endpoints,
        ttlMs: CHECK_TTL_MS,
        acquireTimeoutMs: this.acquireBudgetMs,
        replyTimeoutMs: CHECK_REPLY_MS,
        client: this.procs.length - 1,
        seed: 42 + this.procs.length,
      },
      CHECK_REPLY_MS,
    );
    if (r.kind !== 'connected') throw new StepFailed(`connect answered ${describe(r)}`);
    return p;
  }

  private acquire(p: LockProcess, key: string): Promise<ForeignReply> {
    return p.request({ op: 'acquire', key }, this.acquireBudgetMs + ACQUIRE_GRACE_MS);
  }

  /** Run a step; `false` if it failed (what depends on it is then skipped). */
  private async step(name: string, run: () => Promise<string | void>): Promise<boolean> {
    const current: LockCheckStep = { name, passed: null, detail: '', exchange: [] };
    this.current = current;
    this.steps.push(current);
    try {
      current.detail = (await run()) ?? '';
      current.passed = true;
    } catch (err) {
      current.passed = false;
      current.detail = (err as Error).message;
    }
    return current.passed;
  }

  skip(name: string, why: string): void {
    this.steps.push({ name, passed: null, detail: why, exchange: [] });
  }

  /** A connects and holds `key`; B connects and, when the lock is exclusive, is refused while A holds it. */
  async holding(key: string): Promise<Holding> {
    const direct = (_: string, port: number) => port;
    const h: Holding = { connected: false, heldA: false, connectedB: false, a: null, b: null, tokenA: undefined };
    h.connected = await this.step('connect (process A)', async () => {
      h.a = await this.start('A', direct);
    });
    h.heldA =
      h.connected &&
      (await this.step(`acquire ${key} (A)`, async () => {
        const r = await this.acquire(h.a!, key);
        if (r.kind !== 'held') throw new StepFailed(`expected held, got ${describe(r)}`);
        h.tokenA = r.token;
        return r.token ? `held, token ${r.token}` : 'held';
      }));
    if (!h.connected) this.skip(`acquire ${key} (A)`, 'connect failed');
    h.connectedB =
      h.heldA &&
      (await this.step('connect (process B)', async () => {
        h.b = await this.start('B', direct);
      }));
    if (!(h.heldA && h.connectedB)) this.skip('a second acquire is refused while held', 'an earlier step failed');
    else if (!this.strategy.exclusive)
      this.skip('a second acquire is refused while held', 'the manifest declares exclusive: false');
    else
      await this.step(`a second acquire of ${key} is refused while A holds it (B)`, async () => {
        const t = performance.now();
        const r = await this.acquire(h.b!, key);
        if (r.kind === 'held') throw new StepFailed('B got the lock while A held it: two holders');
        if (r.kind === 'error')
          throw new StepFailed(
            `B answered error (${r.error}); a lock that is busy is a definite "not-acquired": an error is recorded as unknown (info) and the process is restarted`,
          );
        const waited = this.busyWaits
          ? `; it has no acquire timeout: ${this.busyWaits.why}, so the step waited up to ${this.acquireBudgetMs} ms`
          : '';
        return `not-acquired after ${Math.round(performance.now() - t)} ms (${r.kind === 'not-acquired' ? r.reason : ''})${waited}`;
      });
    return h;
  }

  /** A releases; B then holds `key` (with a larger token when one is declared), renews when it renews, releases. */
  async handOver(key: string, h: Holding): Promise<void> {
    const tokenA = h.tokenA;
    const releasedA =
      h.heldA &&
      (await this.step(`release ${key} (A)`, async () => {
        const r = await h.a!.request({ op: 'release', key, ...(tokenA ? { token: tokenA } : {}) }, CHECK_REPLY_MS);
        if (r.kind !== 'released') throw new StepFailed(`expected released, got ${describe(r)}`);
        if (!r.held) throw new StepFailed('released with held: false, but A still held the lock');
      }));
    if (!h.heldA) this.skip(`release ${key} (A)`, 'A holds nothing');
    let heldB = false;
    let tokenB: string | undefined;
    if (releasedA && h.connectedB) {
      heldB = await this.step(`acquire ${key} after A released it (B)`, async () => {
        const r = await this.acquire(h.b!, key);
        if (r.kind !== 'held') throw new StepFailed(`expected held, got ${describe(r)}`);
        tokenB = r.token;
        if (!this.cmd.expectToken) return 'held';
        if (BigInt(r.token!) <= BigInt(tokenA!))
          throw new StepFailed(`token ${r.token} is not larger than A's ${tokenA}: a fence would refuse B, or admit A`);
        return `held, token ${r.token} > ${tokenA}`;
      });
    } else this.skip(`acquire ${key} after A released it (B)`, 'an earlier step failed');
    const withToken = () => (tokenB ? { token: tokenB } : {});
    if (this.cmd.renews && heldB)
      await this.step(`renew ${key} (B)`, async () => {
        const r = await h.b!.request({ op: 'renew', key, ...withToken() }, CHECK_REPLY_MS);
        if (r.kind !== 'held') throw new StepFailed(`expected held, got ${describe(r)}`);
      });
    else if (this.cmd.renews) this.skip(`renew ${key} (B)`, 'B holds nothing');
    if (heldB)
      await this.step(`release ${key} (B)`, async () => {
        const r = await h.b!.request({ op: 'release', key, ...withToken() }, CHECK_REPLY_MS);
        if (r.kind !== 'released' || !r.held) throw new StepFailed(`expected released (held), got ${describe(r)}`);
      });
  }

  /** C connects through proxies of ours, which then cut every server: its acquire must be an error or no reply. */
  async unreachable(): Promise<void> {
    await this.step('an unreachable server is an error, not "not-acquired" (process C, its servers cut)', async () => {
      for (const n of this.cluster.nodes) this.proxies.push(await TcpProxy.start({ targetPort: n.port }));
      const byPort = new Map(this.cluster.nodes.map((n, i) => [n.port, this.proxies[i].port]));
      const c = await this.start('C', (_, port) => byPort.get(port)!);
      for (const p of this.proxies) p.partition();
      try {
        const r = await this.acquire(c, 'account-1');
        if (r.kind === 'not-acquired')
          throw new StepFailed(
            `C answered not-acquired (${r.reason}) while no server could answer it: the history would record "definitely not held" for an acquire that may have taken effect; answer error when you cannot know`,
          );
        if (r.kind === 'held') throw new StepFailed('C answered held while no server could answer it');
        return `error (${(r as { error?: string }).error ?? r.kind})`;
      } catch (err) {
        if (err instanceof StepFailed) throw err;
        // No reply in time is "unknown" too: the harness records info and starts a fresh process.
        return `${(err as Error).message} — recorded as info, like an error (an error reply is cheaper: no restart)`;
      }
    });
  }

  /** A and B, when still usable, answer `close` and exit within 2 s. */
  async closeAll(h: Holding): Promise<void> {
    for (const [label, proc] of [
      ['A', h.a],
      ['B', h.b],
    ] as const) {
      if (!proc) continue;
      if (!proc.usable) {
        this.skip(`close (${label}) and exit`, `${label} was stopped after an earlier step failed`);
        continue;
      }
      await this.step(`close (${label}) and exit`, async () => {
        const t = performance.now();
        const r = await proc.request({ op: 'close' }, CHECK_REPLY_MS);
        if (r.kind !== 'closed') throw new StepFailed(`expected closed, got ${describe(r)}`);
        const exited = await Promise.race([proc.exited.then(() => true), sleepMs(2000).then(() => false)]);
        if (!exited) throw new StepFailed('answered closed but had not exited 2 s later (it would be killed)');
        return `exited ${Math.round(performance.now() - t)} ms after close`;
      });
    }
  }
}

function describe(r: ForeignReply): string {
  if (r.kind === 'error') return `error (${r.error})`;
  if (r.kind === 'not-acquired') return `not-acquired (${r.reason})`;
  return r.kind;
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
