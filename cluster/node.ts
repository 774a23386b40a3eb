/**
 * A server node of the cluster, as the nemesis and the clients see it — whatever backend runs it.
 *
 * Contract: `start` resolves only after a real client call succeeded (not a sleep) and rejects with a
 * HarnessError carrying the tail of the node's log if it can't; `stop` and `kill` resolve once the process is
 * gone and are safe to call on a stopped or paused node (they resume it first: a SIGSTOPped process can't run
 * its SIGTERM handler, and a paused Postgres backend would hold locks until it did); `pause`/`resume` stop and
 * continue every process of the node.
 */
export type NodeKind = 'redis' | 'etcd' | 'zk' | 'pg' | 'pgbouncer' | 'dynamodb';

export interface ClusterNode {
  readonly name: string;
  readonly kind: NodeKind;
  /** The client port on 127.0.0.1. */
  readonly port: number;
  readonly logFile: string;
  readonly dataDir: string;
  readonly running: boolean;
  readonly paused: boolean;
  /** Milliseconds from spawn to the first successful client call, for the last start. */
  readonly readyInMs: number | null;
  start(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Every OS process of the node right now (Postgres: the postmaster and all its backends). */
  pids(): number[];
  /** The server's own version string, from a client call. */
  version(): Promise<string>;
  /** The server's name where a kind has more than one (`valkey-server` for a Redis node): its version's key. */
  readonly server?: string;
  /** Set for a server fencepost does not own (a target's): its faults go through an adapter. */
  readonly remote?: RemoteFacts;
}

/** How a client of ours reaches a Redis server: ioredis options, credentials and TLS included. */
export interface RedisEndpoint {
  host: string;
  port: number;
  /** The ACL user (a target's); absent = the default user. */
  username?: string;
  password?: string;
  /** TLS towards the server (a target's): its CA and the name in its certificate. */
  tls?: { ca?: string; servername?: string };
  /** ioredis's INFO-based ready check; false for a target's server (its fenced ACL refuses INFO). */
  enableReadyCheck?: boolean;
}

/**
 * A Redis server as the faults and probes use it, whether fencepost started it (cluster/servers/redis-node.ts) or it
 * is a target's (target/remote-node.ts).
 */
export interface RedisServer extends ClusterNode {
  /** Its own address (never a fault proxy) with the credentials the harness reaches it with. */
  endpoint(): RedisEndpoint;
  /** Throw its data away while it is down: ours is wiped; a target's keeps whatever its owner's configuration keeps. */
  wipe(): void;
}

/** An etcd member as the faults use it: who it is and whom it sees as the leader. */
export interface EtcdServer extends ClusterNode {
  status(): Promise<{ memberId: string; leader: string; version: string }>;
  /** The lock clients' etcd user, when auth is on. */
  readonly userAuth?: { username: string; password: string };
  /** The URL clients reach it at, not through a proxy (`http://127.0.0.1:2379`). */
  readonly endpoint: string;
}

/**
 * What a server fencepost does not own can tell about the last thing an adapter did to it: the adapter's own
 * account and the server's (whether it stopped answering, whether it answered again). Its faults' records carry
 * it, said to come from the adapter, so that a story is judged by the same steps as a local run's.
 */
export interface RemoteFacts {
  /** `exec adapter "owner-scripts"`: what acted, as the records name it. */
  readonly via: string;
  /** The evidence of the last injection, null before the first. */
  lastEvidence(): Readonly<Record<string, unknown>> | null;
  /**
   * When the adapter's last injection returned (process.hrtime), null before the first: the moment the fault struck,
   * before the wait for the server to stop answering and the adapter's evidence (which take their own time).
   */
  injectedAt(): bigint | null;
  /** Every key of the run on this server begins with it; nothing else there is the run's to read. */
  readonly keyPrefix: string;
  /** Its host, one the target file allows (fault proxies connect there instead of 127.0.0.1). */
  readonly host: string;
}
