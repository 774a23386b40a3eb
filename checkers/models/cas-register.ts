import type { Model } from '../model.ts';
import { sameValue } from '../model.ts';
import type { ClientCall } from '../client-operations.ts';
import { describeRegisterOperation, registerModel, show } from './register.ts';

/**
 * A compare-and-set register (Knossos's `cas-register`): a register plus `cas [old new]`, which sets `new` only
 * if the register holds `old`. A failed cas never reaches the model (it did not happen), so a cas the search
 * places must have succeeded. Reads follow the register's rule: a null/unknown read matches anything.
 */
export function casRegisterModel(initial: unknown = null): Model<unknown, ClientCall, unknown> {
  const register = registerModel(initial);
  return {
    ...register,
    name: 'cas-register',
    step(state, input, output) {
      if (input.f !== 'cas') return register.step(state, input, output);
      if (!Array.isArray(input.value) || input.value.length !== 2) return [false, state];
      const [from, to] = input.value as [unknown, unknown];
      return sameValue(state, from) ? [true, to] : [false, state];
    },
    describeOperation: describeRegisterOperation,
    describeState: (state) => `register = ${show(state)}`,
  };
}
