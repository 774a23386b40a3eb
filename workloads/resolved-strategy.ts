import { faultFacts } from '../faults/catalogue.ts';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import type { ForeignCommand } from './foreign/manifest.ts';
import { leaseProblems, type LeaseTerms } from '../history/lease-terms.ts';
import type { LockStrategy, ServerKind } from '../locks/strategy.ts';

/**
 * A strategy as the harness uses it: resolved once from `--lock` (built-in or plugin), every optional field of
 * `LockStrategy` filled with its default, frozen. It is data only — the client processes load the module
 * themselves from `moduleUrl` — so the run, the option checks and the nemesis all read the same answers.
 */
export interface ResolvedStrategy {
  /** What `--lock` said: a built-in name or the plugin's path. */
  readonly lock: string;
  readonly moduleUrl: string;
  readonly builtin: boolean;
  readonly name: string;
  readonly token: LockStrategy['token'];
  readonly exclusive: boolean;
  /** Nodes of each server the run starts (Postgres, the resource, always runs besides). */
  readonly servers: Readonly<Record<ServerKind, number>>;
  /** The kinds with at least one node, in ServerKind order. */
  readonly needs: readonly ServerKind[];
  /** Why `--fencing` is refused; null when the strategy has a token. */
  readonly noTokenReason: string | null;
  /** `--watchdog` applies (true), is refused (false), or the strategy predates `renews` and doesn't say (null). */
  readonly renews: boolean | null;
  readonly defaultFaults: readonly FaultName[];
  /** `--retry=harness` applies: the client can replace its library's retry loop with its own (default false). */
  readonly harnessRetry: boolean;
  /** A lock in another language (a manifest or exec:): the command each client process starts; null otherwise. */
  readonly foreign: ForeignCommand | null;
  /** What its lease certainly lasts (LockStrategy.lease); null when it does not say. */
  readonly lease: LeaseTerms | null;
  /** The pool mode of the pgbouncer the run starts in front of Postgres for it (LockStrategy.pgbouncer); null: none. */
  readonly pgbouncer: 'session' | 'transaction' | null;
  /** Whether the run starts a DynamoDB (dynalite) for it (LockStrategy.dynamodb). */
  readonly dynamodb: boolean;
}

/** The full cluster's count of each server: what a strategy that names a kind in `needs` gets by default. */
export const DEFAULT_SERVERS: Readonly<Record<ServerKind, number>> = Object.freeze({ redis: 5, etcd: 3, zk: 3 });
const KINDS = Object.keys(DEFAULT_SERVERS) as ServerKind[];
/** Most nodes of one kind a strategy may ask for: each is a real process on a 2-core machine. */
export const MAX_SERVERS = 9;

/** The faults every lock must survive to be called safe (each says so in its facts): what a plain plugin runs. */
export const FAULTS_EVERY_LOCK_MUST_SURVIVE: readonly FaultName[] = Object.freeze(
  FAULT_NAMES.filter((f) => faultFacts(f)?.everyLockMustSurvive === true),
);

/**
 * What is wrong with a module's default export as a LockStrategy, one sentence each (empty when nothing).
 * `builtin`: the built-ins alone may declare `token: 'version'`.
 */
export function strategyProblems(s: unknown, builtin: boolean): string[] {
  if (!s || typeof s !== 'object') return ['it has no default export object'];
  const d = s as Partial<Record<keyof LockStrategy, unknown>>;
  const problems: string[] = [];
  if (typeof d.name !== 'string') problems.push('`name` must be a string');
  const unknownNeeds = Array.isArray(d.needs) ? d.needs.filter((k) => !(KINDS as unknown[]).includes(k)) : null;
  if (unknownNeeds === null) problems.push("`needs` must be an array of 'redis' | 'etcd' | 'zk'");
  else problems.push(...unknownNeeds.map((k) => unknownServer('needs', k)));
  if (!['monotonic', 'version', 'none'].includes(d.token as string))
    problems.push("`token` must be 'monotonic', 'version' or 'none'");
  if (typeof d.connect !== 'function') problems.push('`connect(ctx)` must be a function');
  // 'version' means "the resource's own version check is the fence": with it the harness switches the resource
  // to compare-and-set on the version column, so the lock under test would be judged by a fence it never built.
  if (d.token === 'version' && !builtin) {
    problems.push(
      "`token: 'version'` is reserved for the built-in postgres strategy, whose row version is the fence (the resource then checks versions instead of your lock); declare 'monotonic' if your lease carries a token that grows from each holder to the next, else 'none'",
    );
  }
  if (d.exclusive !== undefined && typeof d.exclusive !== 'boolean') problems.push('`exclusive` must be true or false');
  // With an unknown name in `needs` the two lists cannot be compared: that name is the problem to say.
  if (d.servers !== undefined)
    problems.push(...serversProblems(d.servers, unknownNeeds?.length === 0 ? (d.needs as ServerKind[]) : null));
  if (d.noTokenReason !== undefined && (typeof d.noTokenReason !== 'string' || d.noTokenReason.trim() === ''))
    problems.push('`noTokenReason` must be a sentence');
  if (d.noTokenReason !== undefined && d.token !== 'none')
    problems.push(`\`noTokenReason\` is for \`token: 'none'\`; this strategy declares token '${String(d.token)}'`);
  if (d.renews !== undefined && typeof d.renews !== 'boolean') problems.push('`renews` must be true or false');
  if (d.harnessRetry !== undefined && typeof d.harnessRetry !== 'boolean')
    problems.push('`harnessRetry` must be true or false');
  if (d.lease !== undefined) problems.push(...leaseProblems(d.lease));
  if (d.pgbouncer !== undefined && d.pgbouncer !== 'session' && d.pgbouncer !== 'transaction')
    problems.push("`pgbouncer` must be 'session' or 'transaction'");
  if (d.dynamodb !== undefined && d.dynamodb !== true) problems.push('`dynamodb` must be true when it is given');
  if (d.defaultFaults !== undefined) {
    const bad = Array.isArray(d.defaultFaults)
      ? d.defaultFaults.filter((f) => !(FAULT_NAMES as unknown[]).includes(f))
      : null;
    if (bad === null) problems.push(`\`defaultFaults\` must be an array of fault names (${FAULT_NAMES.join(', ')})`);
    else if (bad.length)
      problems.push(
        `\`defaultFaults\` names unknown faults: ${bad.map(String).join(', ')} (valid: ${FAULT_NAMES.join(', ')})`,
      );
  }
  return problems;
}

/** A name `needs` or `servers` does not know, and what to write instead. */
function unknownServer(field: 'needs' | 'servers', name: unknown): string {
  const valid = `the servers are ${KINDS.map((k) => `'${k}'`).join(', ')}`;
  const said = typeof name === 'string' ? name.toLowerCase() : '';
  // `zookeeper` is the natural guess: it is the endpoint's key in the protocol's connect request (docs/protocol.md).
  if (said === 'zookeeper') return `\`${field}\`: unknown server 'zookeeper': write 'zk' (${valid})`;
  if (said === 'postgres' || said === 'pg')
    return `\`${field}\`: '${String(name)}' is not listed: Postgres (the resource) always runs; leave it out (${valid})`;
  return `\`${field}\`: unknown server ${JSON.stringify(name)} (${valid}; Postgres always runs)`;
}

function serversProblems(servers: unknown, needs: ServerKind[] | null): string[] {
  if (!servers || typeof servers !== 'object' || Array.isArray(servers))
    return ['`servers` must be an object such as { redis: 1 }'];
  const problems: string[] = [];
  for (const [kind, n] of Object.entries(servers)) {
    if (!(KINDS as string[]).includes(kind)) problems.push(unknownServer('servers', kind));
    else if (!Number.isInteger(n) || (n as number) < 0 || (n as number) > MAX_SERVERS)
      problems.push(`\`servers.${kind}\` must be a whole number from 0 to ${MAX_SERVERS}, got ${String(n)}`);
  }
  // Two declarations of the same fact must agree, or provisioning (needs) and the cluster (servers) would differ.
  if (needs === null) return problems;
  const counted = KINDS.filter((k) => ((servers as Record<string, unknown>)[k] as number) > 0);
  const listed = KINDS.filter((k) => needs.includes(k));
  if (counted.join() !== listed.join())
    problems.push(
      `\`servers\` runs [${counted.join(', ')}] but \`needs\` lists [${listed.join(', ')}]: name the same servers in both`,
    );
  return problems;
}

/** A strategy that passed `strategyProblems`, with every default filled in. Pure. */
export function resolveStrategy(
  s: LockStrategy,
  where: { lock: string; moduleUrl: string; builtin: boolean; foreign?: ForeignCommand },
): ResolvedStrategy {
  const servers = Object.freeze(
    Object.fromEntries(
      KINDS.map((k) => [k, s.servers ? (s.servers[k] ?? 0) : s.needs.includes(k) ? DEFAULT_SERVERS[k] : 0]),
    ) as Record<ServerKind, number>,
  );
  return Object.freeze({
    lock: where.lock,
    moduleUrl: where.moduleUrl,
    builtin: where.builtin,
    name: s.name,
    token: s.token,
    exclusive: s.exclusive !== false,
    servers,
    needs: Object.freeze(KINDS.filter((k) => servers[k] > 0)),
    noTokenReason:
      s.token === 'none' ? (s.noTokenReason ?? `the strategy "${s.name}" declares no fencing token`) : null,
    renews: s.renews ?? null,
    defaultFaults: Object.freeze([...(s.defaultFaults ?? FAULTS_EVERY_LOCK_MUST_SURVIVE)]),
    harnessRetry: s.harnessRetry === true,
    foreign: where.foreign ?? null,
    lease: s.lease ?? null,
    pgbouncer: s.pgbouncer ?? null,
    dynamodb: s.dynamodb === true,
  });
}
