import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { Operation } from './model.ts';

/** What a client asked for: Jepsen's `:f` and `:value`. */
export interface ClientCall {
  f: string;
  value: unknown;
}

export interface ClientOperations {
  ops: Operation<ClientCall, unknown>[];
  /** Client ops whose `f` the model does not know, by `f` (e.g. `renew` in a mutex check). */
  ignored: Record<string, number>;
}

/**
 * Pairs each client invocation with its completion, Knossos-style (`history/complete` + `without-failures`):
 *
 * - `ok`: the op took effect; its value is the completion's (a read learns its value only then).
 * - `fail`: it definitely did not happen, so it is dropped.
 * - `info`, or no completion before the history ends: it may take effect at any later time or never; output
 *   unknown, return at infinity. If its `f` is one of `pureFs` (reads), it is dropped instead: an op that changes
 *   nothing and whose output is unknown constrains nothing, and leaving it in only multiplies the search space.
 *
 * Processes `nemesis` and `harness` are not clients and are skipped.
 */
export function clientOperations(
  input: History | readonly Op[],
  fs: ReadonlySet<string>,
  pureFs: ReadonlySet<string> = new Set(),
): ClientOperations {
  const ops: Operation<ClientCall, unknown>[] = [];
  const ignored: Record<string, number> = {};
  const history = History.of(input);
  const malformed = firstMalformed(history);
  if (malformed) throw new Error(`malformed history: ${malformed}`);

  const unknownOutcome = (invoke: Op, completion: Op | undefined): void => {
    if (pureFs.has(invoke.f)) return;
    ops.push({
      process: invoke.process,
      input: { f: invoke.f, value: invoke.value },
      output: undefined,
      call: invoke.index,
      return: Infinity,
      indexes: completion ? [invoke.index, completion.index] : [invoke.index],
    });
  };

  for (const op of history.ops) {
    if (op.process === 'nemesis' || op.process === 'harness' || op.type === 'invoke') continue;
    const invoke = history.invokeOf(op);
    if (!invoke) continue;
    if (!fs.has(invoke.f)) {
      ignored[invoke.f] = (ignored[invoke.f] ?? 0) + 1;
      continue;
    }
    if (op.type === 'fail') continue;
    if (op.type === 'info') {
      unknownOutcome(invoke, op);
      continue;
    }
    ops.push({
      process: invoke.process,
      input: { f: invoke.f, value: op.value },
      output: op.value,
      call: invoke.index,
      return: op.index,
      indexes: [invoke.index, op.index],
    });
  }
  for (const invoke of history.openInvokes) {
    if (invoke.process === 'harness') continue;
    if (fs.has(invoke.f)) unknownOutcome(invoke, undefined);
    else ignored[invoke.f] = (ignored[invoke.f] ?? 0) + 1;
  }
  return { ops, ignored };
}

/**
 * The first break of the journal's rules that would make the operations wrong, earliest first. A bare `info` with
 * no invocation is a note (Jepsen writes them), not an operation, so it is no break.
 */
function firstMalformed(history: History): string | undefined {
  const clients = (op: Op) => op.process !== 'harness';
  const reinvoked = history.reinvoked.find(({ invoke }) => clients(invoke));
  const orphan = history.orphans.find((op) => clients(op) && op.type !== 'info');
  if (reinvoked && (!orphan || reinvoked.invoke.index < orphan.index))
    return (
      `process ${reinvoked.invoke.process} invoked op #${reinvoked.invoke.index} while op #${reinvoked.pending.index} was still open ` +
      `(after an info a client must continue under a new process id)`
    );
  if (orphan)
    return `op #${orphan.index} (${orphan.type} ${orphan.f}) completes nothing: process ${orphan.process} had no open invocation`;
  return undefined;
}
