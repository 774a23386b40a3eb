import type { Footprint, Model } from '../model.ts';
import { IMPOSSIBLE, sameValue } from '../model.ts';
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
    hash: registerHash,
    footprint: registerFootprint,
    describeOperation: describeRegisterOperation,
    describeState: (state) => `register = ${show(state)}`,
  };
}

function registerHash(state: unknown): string {
  return JSON.stringify(state) ?? 'undefined';
}

/**
 * A write needs nothing and leaves its value; a read of a known value needs it (`sameValue` is JSON equality,
 * like the hash); a cas needs its old value and leaves its new one.
 */
export function registerFootprint(input: ClientCall, output: unknown): Footprint {
  switch (input.f) {
    case 'write':
      return { leaves: registerHash(input.value) };
    case 'read':
      return output == null ? {} : { needs: registerHash(output) };
    case 'cas': {
      if (!Array.isArray(input.value) || input.value.length !== 2) return { needs: IMPOSSIBLE };
      const [from, to] = input.value as [unknown, unknown];
      return { needs: registerHash(from), leaves: registerHash(to) };
    }
    default:
      return { needs: IMPOSSIBLE };
  }
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
