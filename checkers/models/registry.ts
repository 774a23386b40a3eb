import type { Op } from '../../history/op.ts';
import type { AnyModel, Operation } from '../model.ts';
import { clientOperations } from '../client-operations.ts';
import { accountModel, accountOperations } from './account.ts';
import { casRegisterModel } from './cas-register.ts';
import { mutexModel, mutexOperations } from './mutex.ts';
import { registerModel } from './register.ts';

/** A model together with how to read its ops out of a history: what `check --model=<name>` needs. */
export interface HistoryModel {
  name: string;
  summary: string;
  /** `initial` is the register's starting value (Knossos defaults to nil; its own tests use 0). */
  build(
    history: Op[],
    opts: { initial?: unknown },
  ): { model: AnyModel; ops: Operation[]; ignored: Record<string, number> };
}

const READS = new Set(['read']);

export const HISTORY_MODELS: readonly HistoryModel[] = [
  {
    name: 'register',
    summary: 'read/write register (Knossos register)',
    build: (history, { initial = null }) => ({
      model: registerModel(initial),
      ...clientOperations(history, new Set(['read', 'write']), READS),
    }),
  },
  {
    name: 'cas-register',
    summary: 'read/write/cas [old new] register (Knossos cas-register)',
    build: (history, { initial = null }) => ({
      model: casRegisterModel(initial),
      ...clientOperations(history, new Set(['read', 'write', 'cas']), READS),
    }),
  },
  {
    name: 'mutex',
    summary: 'acquire/release lock, one per account if ops name one (Knossos mutex)',
    build: (history) => ({ model: mutexModel, ...mutexOperations(history) }),
  },
  {
    name: 'account',
    summary: "fencepost bank account: each client's read → write is one atomic read-modify-write",
    build: (history) => ({ model: accountModel, ops: accountOperations(history), ignored: {} }),
  },
];

export function historyModel(name: string): HistoryModel | undefined {
  return HISTORY_MODELS.find((m) => m.name === name);
}
