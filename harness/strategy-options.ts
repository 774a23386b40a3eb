import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { HarnessError } from '../common/errors.ts';
import type { Config } from './run-argv.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';

/**
 * The options that depend on what the lock can do, asked of the resolved strategy itself: --fencing needs a
 * token, --watchdog a lease the client renews, and each fault of the run (--nemesis, or the strategy's default
 * faults) something it can act on: a fault that cannot touch the lock's servers would inject nothing, and a run
 * that survived nothing must not pass for one that survived the fault. The second half of the CLI's option validation (the first,
 * resolveConfig, needs no strategy module): `runTest` calls it before anything starts, and the matrix calls it
 * to confirm the refusals its oracle expects. Throws a `bad-arguments` HarnessError (exit 254).
 */
export function checkStrategyOptions(config: Readonly<Config>, strategy: ResolvedStrategy): void {
  if (config.fencing && strategy.noTokenReason !== null) {
    throw new HarnessError('bad-arguments', `--fencing with --lock=${strategy.lock}: ${strategy.noTokenReason}.`, {
      hint: strategy.builtin
        ? 'drop --fencing, or use a lock with a fencing token: --lock=etcd|zookeeper|postgres'
        : strategy.foreign
          ? 'drop --fencing; or, if every `held` reply carries a token that grows from one holder to the next, write a manifest with "token": "monotonic" (see docs/protocol.md)'
          : "drop --fencing; or, if every lease carries a token that grows from one holder to the next, declare `token: 'monotonic'` (see docs/your-lock.md)",
    });
  }
  const faults = config.nemesis ?? strategy.defaultFaults;
  const lockRefusal = (f: (typeof faults)[number]) => EXECUTORS[f].refusal(strategy.servers, strategy.lock);
  const optionRefusal = (f: (typeof faults)[number]) => EXECUTORS[f].optionRefusal?.(config) ?? null;
  for (const f of faults) {
    const why = lockRefusal(f) ?? optionRefusal(f);
    if (why === null) continue;
    const from = config.nemesis ? `--nemesis=${f}` : `${f} (a default fault of "${strategy.name}")`;
    const others = faults.filter((g) => lockRefusal(g) === null && optionRefusal(g) === null);
    const dropIt = config.nemesis
      ? `drop ${f} from --nemesis${others.length ? ` (--nemesis=${others.join(',')})` : ''}`
      : `pass --nemesis with the faults that apply, or drop ${f} from the strategy's \`defaultFaults\``;
    // A refusal by the options names the option to give; one by the lock can only be met by another lock.
    throw new HarnessError('bad-arguments', `${from} cannot act on --lock=${strategy.lock}: ${why}.`, {
      hint:
        lockRefusal(f) !== null
          ? config.nemesis
            ? `${dropIt}, or pick a lock it can reach`
            : dropIt
          : `give what it names, or ${dropIt}`,
    });
  }
  if (config.retry === 'harness' && !strategy.harnessRetry) {
    throw new HarnessError(
      'bad-arguments',
      `--retry=harness with --lock=${strategy.lock}: "${strategy.name}" does not declare \`harnessRetry: true\`: its client has no retry loop of its own to put in place of its library's, so the run would measure the library's loop all the same.`,
      {
        hint: strategy.builtin
          ? 'drop --retry (the library retries by itself), or use --lock=redlock-npm'
          : "drop --retry; or, if your client can retry single library attempts itself on ctx.retry === 'harness', declare `harnessRetry: true`",
      },
    );
  }
  if (config.watchdog && strategy.renews === false) {
    throw new HarnessError(
      'bad-arguments',
      `--watchdog with --lock=${strategy.lock}: "${strategy.name}" declares \`renews: false\`: its client does not renew the lease (the lock keeps itself alive, or it cannot be extended), so there is nothing for a watchdog to do.`,
      {
        hint: strategy.builtin
          ? 'drop --watchdog, or use a lock whose lease the client renews: --lock=redis|redlock|redlock-npm'
          : strategy.foreign
            ? 'drop --watchdog, or declare "renews": true in the manifest if your process answers the `renew` op (see docs/protocol.md)'
            : 'drop --watchdog, or declare `renews: true` if your lock client has renew() (see docs/your-lock.md)',
      },
    );
  }
}

/**
 * The strategy with the ensemble sizes the user asked for (--etcd-nodes, --zk-nodes) in place of its own. A size
 * for servers the lock does not run on is a mistake, said so (exit 254). Pure.
 */
export function withEnsembleSizes(config: Readonly<Config>, strategy: ResolvedStrategy): ResolvedStrategy {
  const asked = [
    ['etcd', 'etcd-nodes', config.etcdNodes],
    ['zk', 'zk-nodes', config.zkNodes],
  ] as const;
  let servers = strategy.servers;
  for (const [kind, flag, n] of asked) {
    if (n === null || n === undefined) continue;
    if (!strategy.servers[kind])
      throw new HarnessError(
        'bad-arguments',
        `--${flag}=${n}: --lock=${strategy.lock} runs no ${kind === 'zk' ? 'ZooKeeper' : 'etcd'}.`,
        {
          hint: `drop --${flag}, or use --lock=${kind === 'zk' ? 'zookeeper' : 'etcd'}`,
        },
      );
    servers = { ...servers, [kind]: n };
  }
  return servers === strategy.servers ? strategy : Object.freeze({ ...strategy, servers: Object.freeze(servers) });
}
