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
  history: Op[],
  fs: ReadonlySet<string>,
  pureFs: ReadonlySet<string> = new Set(),
): ClientOperations {
  const ops: Operation<ClientCall, unknown>[] = [];
  const ignored: Record<string, number> = {};
  const open = new Map<number | string, Op>();

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

  for (const op of history) {
    if (op.process === 'nemesis' || op.process === 'harness') continue;
    if (op.type === 'invoke') {
      const running = open.get(op.process);
      if (running) {
        throw new Error(
          `malformed history: process ${op.process} invoked op #${op.index} while op #${running.index} was still open ` +
            `(after an info a client must continue under a new process id)`,
        );
      }
      open.set(op.process, op);
      continue;
    }
    const invoke = open.get(op.process);
    if (!invoke) {
      // A bare info with no invocation is a note (Jepsen writes them), not an operation.
      if (op.type === 'info') continue;
      throw new Error(
        `malformed history: op #${op.index} (${op.type} ${op.f}) completes nothing: process ${op.process} had no open invocation`,
      );
    }
    open.delete(op.process);
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
  for (const invoke of open.values()) {
    if (fs.has(invoke.f)) unknownOutcome(invoke, undefined);
    else ignored[invoke.f] = (ignored[invoke.f] ?? 0) + 1;
  }
  return { ops, ignored };
}
