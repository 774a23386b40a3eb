/**
 * A server node of the cluster, as the nemesis and the clients see it — whatever backend runs it.
 *
 * Contract: `start` resolves only after a real client call succeeded (not a sleep) and rejects with a
 * HarnessError carrying the tail of the node's log if it can't; `stop` and `kill` resolve once the process is
 * gone and are safe to call on a stopped or paused node (they resume it first: a SIGSTOPped process can't run
 * its SIGTERM handler, and a paused Postgres backend would hold locks until it did); `pause`/`resume` stop and
 * continue every process of the node.
 */
export type NodeKind = 'redis' | 'etcd' | 'zk' | 'pg';

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
}
