import { isRecord } from '../common/is-record.ts';
import type { FaultAim } from './fault-aim.ts';

/**
 * How a fault declares its evidence, once: each key of its `start` and `end` params with the reader that takes it
 * back from a stored record. The TypeScript type the executor must write (`Params`) and the decoded shape the judge
 * reads (`Decoded`) both come from that one declaration, so a key renamed in one place cannot drift from the other.
 * A reader returns undefined for a value that is absent or of another type: the judge then reads "not recorded".
 * The JSON keys are the history's format: renaming one breaks every stored run.
 */

/** Reads one recorded value as T, or undefined when it is absent or something else. */
export type Reader<T> = (v: unknown) => T | undefined;

/** A key the executor may leave out (`opt(num)`): optional in its params type. */
export interface Optional<T> extends Reader<T> {
  readonly optional: true;
}

/** A key that may be left out of the record. */
export const opt = <T>(read: Reader<T>): Optional<T> =>
  Object.assign((v: unknown) => read(v), { optional: true as const });

/** A fault's record declared as its keys and their readers. */
export type Fields = Readonly<Record<string, Reader<unknown>>>;

type ReadOf<R> = R extends Reader<infer T> ? T : never;
type Flat<T> = { [K in keyof T]: T[K] };

/** What a record declared by `D` holds, as its writer must write it: the `opt(…)` keys optional. */
export type Params<D> = Flat<
  { -readonly [K in keyof D as D[K] extends Optional<unknown> ? never : K]: ReadOf<D[K]> } & {
    -readonly [K in keyof D as D[K] extends Optional<unknown> ? K : never]?: ReadOf<D[K]>;
  }
>;

/** Every key of T, each read as present or absent (undefined). */
export type Decoded<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** Why a record lacks a key that today's runs always record: the run that wrote it predates the key. */
export const WHY_ABSENT = {
  aim: 'a run from before fencepost recorded where faults landed',
  heldBytes: 'a run from before the proxies counted them',
} as const;

/** A finite number, or undefined: the one such reader of recorded params. */
export const num: Reader<number> = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const str: Reader<string> = (v) => (typeof v === 'string' ? v : undefined);
export const bool: Reader<boolean> = (v) => (typeof v === 'boolean' ? v : undefined);
/** A flag that is only ever written as `true`. */
export const yes: Reader<true> = (v) => (v === true ? true : undefined);
export const strings: Reader<string[]> = (v) => (Array.isArray(v) ? v.map(String) : undefined);
export const numbers: Reader<number[]> = (v) => (Array.isArray(v) ? (v as number[]) : undefined);
/** One literal value, and nothing else. */
export const literal =
  <T extends string>(want: T): Reader<T> =>
  (v) =>
    v === want ? want : undefined;
export const orNull =
  <T>(read: Reader<T>): Reader<T | null> =>
  (v) =>
    v === null ? null : read(v);
const recordOf =
  <T>(read: (x: unknown) => T): Reader<Record<string, T>> =>
  (v) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, read(x)])) : undefined;
export const numberRecord = recordOf((x) => num(x) ?? 0);
export const stringRecord = recordOf(String);
export const stringsRecord = recordOf((x) => (Array.isArray(x) ? x.map(String) : []));

/** The keys of `fields` that `raw` holds with their type; the others left out. */
export function decode<D extends Fields>(fields: D, raw: unknown): Decoded<Params<D>> {
  const params = isRecord(raw) ? raw : {};
  const out: Record<string, unknown> = {};
  for (const [k, read] of Object.entries(fields)) {
    const v = read(params[k]);
    if (v !== undefined) out[k] = v;
  }
  return out as Decoded<Params<D>>;
}

/** An aim, when its locating numbers are all there (see FaultAim). */
export function readAim(v: unknown): FaultAim | undefined {
  if (!isRecord(v)) return undefined;
  const { process, account, readIndex, atIndex } = v;
  if (![process, account, readIndex, atIndex].every((n) => typeof n === 'number' && Number.isInteger(n)))
    return undefined;
  return v as unknown as FaultAim;
}
