import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { IMPOSSIBLE, type Model, type Operation } from '../model.ts';
import { clientOperations, type ClientCall, type ClientOperations } from '../client-operations.ts';

/**
 * A mutex as its clients see it (Knossos's `mutex`): `acquire` succeeds only if the lock is free, `release`
 * only if it is held. Like Knossos it does not track *who* holds it: an acquire after another client's
 * acquire, with no release between, is the violation it finds.
 *
 * One mutex per account when the ops name one (fencepost's bank workload locks each account); otherwise a
 * single mutex (Jepsen's EDN histories have nil values).
 */
export const mutexModel: Model<boolean, ClientCall, unknown> = {
  name: 'mutex',
  init: () => false,
  step(held, input) {
    if (input.f === 'acquire') return held ? [false, held] : [true, true];
    if (input.f === 'release') return held ? [true, false] : [false, held];
    return [false, held];
  },
  partition: (ops) => [...groupBy(ops, (op) => accountOf(op.input.value)).values()],
  hash: (held) => (held ? '1' : '0'),
  footprint(input) {
    if (input.f === 'acquire') return { needs: '0', leaves: '1' };
    if (input.f === 'release') return { needs: '1', leaves: '0' };
    return { needs: IMPOSSIBLE };
  },
  describeOperation(input) {
    const account = accountOf(input.value);
    return account === undefined ? input.f : `${input.f} account ${account}`;
  },
  describeState: (held) => (held ? 'lock held' : 'lock free'),
};

/**
 * The mutex ops of a history. A release that completed `ok` but reports `released: false` (fencepost clients
 * whose lock had already expired) released nothing, so it is treated as not having happened.
 */
export function mutexOperations(history: History | readonly Op[]): ClientOperations {
  const { ops, ignored } = clientOperations(history, new Set(['acquire', 'release']));
  const didSomething = (op: Operation<ClientCall, unknown>): boolean =>
    !(
      op.input.f === 'release' &&
      op.output !== undefined &&
      (op.output as { released?: unknown } | null)?.released === false
    );
  return { ops: ops.filter(didSomething), ignored };
}

function accountOf(value: unknown): number | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { account?: unknown }).account === 'number') {
    return (value as { account: number }).account;
  }
  return undefined;
}

function groupBy<T, K>(xs: T[], key: (x: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  return groups;
}
