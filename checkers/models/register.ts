import type { Model } from '../model.ts';
import { sameValue } from '../model.ts';
import type { ClientCall } from '../client-operations.ts';

/**
 * A read/write register (Knossos's `register`): `write v` sets it, `read` returns it. The initial value is
 * `null` (Clojure's nil) unless given.
 *
 * Knossos semantics for reads: a read whose value is nil/null — or unknown because it never returned — could
 * have read anything, so it is always possible. That also means an `ok` read of null is not evidence of
 * anything; histories that need to tell "empty" apart from "unknown" should use a distinct empty value.
 */
export function registerModel(initial: unknown = null): Model<unknown, ClientCall, unknown> {
  return {
    name: 'register',
    init: () => initial,
    step(state, input, output) {
      switch (input.f) {
        case 'write':
          return [true, input.value];
        case 'read':
          return [output == null || sameValue(state, output), state];
        default:
          return [false, state];
      }
    },
    hash: (state) => JSON.stringify(state) ?? 'undefined',
    describeOperation: describeRegisterOperation,
    describeState: (state) => `register = ${show(state)}`,
  };
}

export function describeRegisterOperation(input: ClientCall, output: unknown): string {
  switch (input.f) {
    case 'read':
      return output == null ? 'read ?' : `read ${show(output)}`;
    case 'write':
      return `write ${show(input.value)}`;
    case 'cas': {
      const [from, to] = Array.isArray(input.value) ? input.value : [undefined, undefined];
      return `cas ${show(from)} → ${show(to)}`;
    }
    default:
      return `${input.f} ${show(input.value)}`;
  }
}

export function show(v: unknown): string {
  return v === undefined ? '?' : (JSON.stringify(v) ?? String(v));
}
