/**
 * A target: the user's own deployment of a lock's servers, as its target file (`--target=<file>`) describes it, read
 * once and frozen (target-file.ts). fencepost starts none of these servers; it connects with credentials read from
 * the environment variables the file names, keeps every key under `keyPrefix`, and touches a server process only
 * through an adapter the file names for that fault (adapter.ts).
 */

/** A server kind a target may name: the lock's servers, and optionally the resource's Postgres. */
export type TargetServerKind = 'redis' | 'etcd';

/** One server of the target. */
export interface TargetEndpoint {
  /** The node's name in the run's records (`redis[0]` unless the file names it). */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /**
   * What an adapter acts on for this server: a container name (docker), a pod name (kubernetes), or any word the
   * exec adapter's commands take as `{node}`. Defaults to `name`.
   */
  readonly node: string;
}

/** TLS towards a server: the CA that signed its certificate and the name it was issued for. */
export interface TargetTls {
  /** PEM text of the CA (read from the file's `caFile`, relative to the target file). */
  readonly ca: string | null;
  readonly caFile: string | null;
  /** The server's name in its certificate (connections go through local proxies, so it is not the host dialled). */
  readonly servername: string | null;
}

/**
 * How a Redis client finds its nodes. `standalone`: the endpoints are all there is. `cluster` / `sentinel`: the
 * client learns the real addresses from the servers and would bypass the harness's proxies, so proxy faults are
 * refused for them (target-faults.ts) rather than silently not happening.
 */
export type RedisMode = 'standalone' | 'cluster' | 'sentinel';

export interface TargetServers {
  readonly endpoints: readonly TargetEndpoint[];
  /** The ACL user / etcd user; null = the server's default user. */
  readonly user: string | null;
  /** The environment variable holding the password (never the password itself). */
  readonly passwordEnv: string | null;
  readonly tls: TargetTls | null;
}

export interface TargetRedis extends TargetServers {
  readonly mode: RedisMode;
}

export type TargetEtcd = TargetServers;

/** The resource's Postgres on the user's side; its tables go in a schema named after the key prefix. */
export interface TargetPostgres {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  readonly passwordEnv: string | null;
}

/** The server-side actions an adapter performs, each undone by its pair: pause → resume, kill → start. */
export type AdapterAction = 'pause' | 'resume' | 'kill' | 'start';

export interface ExecAdapterSpec {
  readonly type: 'exec';
  readonly name: string;
  /** argv per action; `{node}` is replaced by the endpoint's `node`. Relative programs resolve against the file. */
  readonly commands: Readonly<Partial<Record<AdapterAction | 'evidence', readonly string[]>>>;
  /** Folder the commands run in (the target file's). */
  readonly cwd: string;
  readonly timeoutMs: number;
}

export interface DockerAdapterSpec {
  readonly type: 'docker';
  readonly name: string;
  /** The engine's socket; null = dockerode's default (DOCKER_HOST or /var/run/docker.sock). */
  readonly socketPath: string | null;
}

export interface KubernetesAdapterSpec {
  readonly type: 'kubernetes';
  readonly name: string;
  readonly namespace: string;
  /** `pod`: delete or exec into the named pod; `chaos-mesh`: apply a PodChaos fencepost writes, delete it to heal. */
  readonly mode: 'pod' | 'chaos-mesh';
  readonly kubectl: string;
  /** kubectl --context; null = the current one. */
  readonly context: string | null;
  /**
   * Read for the files written when `pod` mode paused by `kubectl exec … kill -STOP 1` into this container; nothing
   * execs into a pod since that pause was found to stop nothing (KUBERNETES_NO_PAUSE), so it is unused.
   */
  readonly container: string | null;
}

export type AdapterSpec = ExecAdapterSpec | DockerAdapterSpec | KubernetesAdapterSpec;

/** A health probe the run watches: a command that exits 0 while the user's system is healthy. */
export interface HealthProbe {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly intervalMs: number;
  /** Consecutive failures that abort the run. */
  readonly failures: number;
}

export interface AbortConditions {
  /** Fraction (0–1) of client operations ending unknown (`info`) over the last window that aborts the run. */
  readonly maxErrorRate: number | null;
  /** The longest a run against this target may last; a longer --time-limit is refused. */
  readonly maxMinutes: number;
}

export interface TargetSpec {
  /** The file it was read from (absolute). */
  readonly file: string;
  readonly name: string;
  /** Hosts the run may open connections to; every endpoint's host is one of them. */
  readonly allowHosts: readonly string[];
  /** Every key the run creates begins with it; the run refuses to start while any key exists under it. */
  readonly keyPrefix: string;
  readonly redis: TargetRedis | null;
  readonly etcd: TargetEtcd | null;
  readonly postgres: TargetPostgres | null;
  readonly adapters: Readonly<Record<string, AdapterSpec>>;
  /** Server fault → the adapter it goes through. A server fault not named here is refused. */
  readonly serverFaults: Readonly<Record<string, string>>;
  readonly health: HealthProbe | null;
  readonly abort: AbortConditions;
  /** The file says the credentials cannot be fenced to the prefix and the user accepts it (target check says so loudly). */
  readonly unfencedAccepted: boolean;
}
