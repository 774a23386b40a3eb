// @ts-expect-error — redlock 5.0.0-beta.2 declares its types only at the top-level "types", which NodeNext
// resolution ignores because the package has "exports" without a "types" condition. The runtime import is fine
// (dist/esm); the types come from the package's own declaration file through the type-only import below.
import RedlockRuntime, { ExecutionError as ExecutionErrorRuntime } from 'redlock';
import type * as RedlockTypes from '../../node_modules/redlock/dist/index.js';

/** The published `redlock` package, typed: the redlock-npm strategy and its tests import it from here. */
export const Redlock = RedlockRuntime as typeof RedlockTypes.default;
export const ExecutionError = ExecutionErrorRuntime as typeof RedlockTypes.ExecutionError;
export type Redlock = RedlockTypes.default;
export type RedlockLock = RedlockTypes.Lock;
