import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import type { Etcd3 } from 'etcd3';
import { ETCD_ROOT, ETCD_USER } from '../credentials.ts';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';

export interface EtcdNodeOptions extends ServerNodeOptions {
  peerPort: number;
  /** `name=http://127.0.0.1:peerPort,…` for all members. */
  initialCluster: string;
  clusterToken: string;
  /** The run's etcd passwords (cluster/credentials.ts): `root` for the harness, `fencepost` for the lock clients. */
  rootPassword: string;
  userPassword: string;
  /** The member whose peer port must answer before this one first starts (EtcdNode.prepare says why). */
  firstStartAfter?: EtcdNode;
}

/**
 * etcd3 (with gRPC and protobufjs: ~0.2 s of a run's start-up) is loaded when a run first talks to an etcd member,
 * not by every run that imports the cluster code.
 */
const etcd3 = (() => {
  let mod: typeof import('etcd3') | null = null;
  return () => (mod ??= createRequire(import.meta.url)('etcd3') as typeof import('etcd3'));
})();

/** How long a member waits for the one before it to serve its peers before starting anyway (as all at once). */
export const PEER_WAIT_MS = 3000;

/** The lock clients' etcd auth: their own user, whose role may touch `fencepost/` and nothing else. */
export interface EtcdAuth {
  username: string;
  password: string;
}

export class EtcdNode extends ServerNode {
  protected override readonly serverUser = 'etcd';
  private readonly etcdOpts: EtcdNodeOptions;
  /**
   * Set once `enableEtcdAuth` has run: from then on every call of ours (probes of a restarted member, the faults'
   * leader lookups) authenticates as root. Before it, a client with credentials would fail ("authentication is not
   * enabled"), so the first start probes without.
   */
  authEnabled = false;
  /** Set once the first start has been tried: a later start (a restart) does not wait for its predecessor. */
  private started = false;

  constructor(opts: EtcdNodeOptions) {
    super(opts);
    this.etcdOpts = opts;
  }

  /**
   * A new member first asks each other member whether it was bootstrapped already (etcd's isMemberBootstrapped: GET
   * <peer>/members, one after another, each with a 1 s timeout that no flag changes). Started all at once, every
   * member's peer port is bound before it serves, so both questions wait out their timeout: 2 s of a 2.2 s boot.
   * Started one after another, each answered or refused (not yet bound) at once: the 3-member cluster was ready
   * in ~1 s. Only the first start: a restarted member has its data and skips the question.
   */
  protected override async prepare(): Promise<void> {
    if (this.started || !this.etcdOpts.firstStartAfter) return;
    await this.etcdOpts.firstStartAfter.servingPeers(PEER_WAIT_MS);
  }

  override async start(): Promise<void> {
    try {
      await super.start();
    } finally {
      this.started = true;
    }
  }

  /** Resolves once this member's peer port answers an HTTP request (any answer), or after `boundMs` regardless. */
  async servingPeers(boundMs: number): Promise<void> {
    const deadline = performance.now() + boundMs;
    while (performance.now() < deadline) {
      try {
        await fetch(`http://127.0.0.1:${this.etcdOpts.peerPort}/members`, { signal: AbortSignal.timeout(200) });
        return;
      } catch {
        await sleep(10);
      }
    }
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Where the other members reach this one (raft's peer traffic): what a server partition cuts. */
  get peerPorts(): number[] {
    return [this.etcdOpts.peerPort];
  }

  /** etcd member name: the node name without brackets (etcd[1] → etcd1). */
  get memberName(): string {
    return this.name.replace(/[[\]]/g, '');
  }

  protected command(): Command {
    const peer = `http://127.0.0.1:${this.etcdOpts.peerPort}`;
    return {
      file: 'etcd',
      args: [
        '--name',
        this.memberName,
        '--data-dir',
        this.dataDir,
        '--listen-client-urls',
        this.endpoint,
        '--advertise-client-urls',
        this.endpoint,
        '--listen-peer-urls',
        peer,
        '--initial-advertise-peer-urls',
        peer,
        '--initial-cluster',
        this.etcdOpts.initialCluster,
        '--initial-cluster-token',
        this.etcdOpts.clusterToken,
        // Ignored when the data dir already has a member: a restart with data rejoins.
        '--initial-cluster-state',
        'new',
        // Loopback is fast: shorter elections make leader kills and pauses heal within a short run.
        '--heartbeat-interval',
        '50',
        '--election-timeout',
        '500',
        '--logger',
        'zap',
      ],
      user: this.serverUser,
    };
  }

  /** The lock clients' credentials. */
  get rootPassword(): string {
    return this.etcdOpts.rootPassword;
  }

  get userAuth(): EtcdAuth {
    return { username: ETCD_USER, password: this.etcdOpts.userPassword };
  }

  /** An admin client of this member (root once auth is on). Never handed to a lock client. */
  client(): Etcd3 {
    return new (etcd3().Etcd3)({
      hosts: [this.endpoint],
      dialTimeout: 1000,
      ...(this.authEnabled ? { auth: { username: ETCD_ROOT, password: this.etcdOpts.rootPassword } } : {}),
    });
  }

  protected async probe(): Promise<void> {
    const c = this.client();
    try {
      // A linearizable read needs a leader: this succeeds only once the cluster has formed.
      await Promise.race([
        c.get('fencepost/ready').string(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('get timed out after 1 s')), 1000)),
      ]);
    } finally {
      c.close();
    }
  }

  /** Status of this member: its id and the id of the leader it sees. */
  async status(): Promise<{ memberId: string; leader: string; version: string }> {
    const c = this.client();
    try {
      const s = await c.maintenance.status();
      return { memberId: String(s.header.member_id), leader: String(s.leader), version: s.version };
    } finally {
      c.close();
    }
  }

  async version(): Promise<string> {
    return (await this.status()).version;
  }
}

/**
 * Turns etcd's auth on for a cluster that just formed: the `fencepost` role may read and write `fencepost/` (the
 * lock keys and the probe's key) and nothing else, the `fencepost` user holds it, `root` holds the root role (etcd
 * refuses `auth enable` otherwise), then `auth enable`. From here on a local user without the run's passwords can
 * neither read nor touch a lock key. Users, roles and the enable go through Raft, so one member is enough.
 */
export async function enableEtcdAuth(nodes: EtcdNode[]): Promise<void> {
  const first = nodes[0];
  if (!first) return;
  const c = first.client();
  try {
    const role = await c.role(ETCD_USER).create();
    await role.grant({ permission: 'Readwrite', range: etcd3().Range.prefix('fencepost/') });
    await c.user(ETCD_USER).create(first.userAuth.password);
    await c.user(ETCD_USER).addRole(ETCD_USER);
    await c.user(ETCD_ROOT).create(first.rootPassword);
    await c.user(ETCD_ROOT).addRole('root');
    await c.auth.authEnable();
  } finally {
    c.close();
  }
  for (const n of nodes) n.authEnabled = true;
}
