import { randomBytes } from 'node:crypto';

/**
 * What a run against a target owns there: its own key namespace under the file's prefix, recorded *before* any
 * client starts (audit R1). Every key the lock creates goes under `namespace` (the clients' `ctx.keyPrefix`), so a
 * plugin's keys are recorded too, whatever it names them; `keys` lists the names fencepost knows in advance (the
 * built-in locks'). A crash between the recording and the first key leaves a record of nothing, never a key of
 * nobody's. `cleanup --target` deletes only what a record of a dead run names, and lists the rest.
 *
 * The same JSON is kept in the target's prefix (`manifestKey`, on every server the run uses) and beside the run
 * (`<run dir>/target-keys.json`): the prefix's copy is found from any machine, the folder's survives a wiped server.
 */
export interface OwnedKeys {
  readonly format: 1;
  /** A name unique to the run: `run-<time base36>-<6 hex>`. */
  readonly id: string;
  readonly target: string;
  /** The target file's prefix; every name below begins with it. */
  readonly keyPrefix: string;
  /** `<keyPrefix><id>/`: every key under it is the run's. */
  readonly namespace: string;
  /** The key names the run's lock creates that fencepost knows in advance (all under `namespace`). */
  readonly keys: readonly string[];
  /** Who writes them: the machine, the harness's pid and /proc start time (pid reuse), and when. */
  readonly host: string;
  readonly pid: number;
  readonly pidStart: number;
  readonly startedAt: number;
  /**
   * The run is over by then whatever happens (its abort.maxMinutes, and a margin): a record from another machine is
   * dead after it.
   */
  readonly until: number;
}

/** The file beside the run. */
export const OWNED_KEYS_FILE = 'target-keys.json';
/** What every record's key in the prefix begins with, after the prefix. */
export const MANIFEST_MARK = 'fencepost-owned:';
/** A run may outlive its abort.maxMinutes by its teardown: a record from another machine lives this much longer. */
export const UNTIL_MARGIN_MS = 10 * 60_000;

const ID = /^run-[0-9a-z]{1,12}-[0-9a-f]{6}$/;

/** A fresh run id for the keys (time first, so the records list in order). */
export function newOwnedId(now = Date.now()): string {
  return `run-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** The run's namespace under the prefix. */
export function namespaceOf(keyPrefix: string, id: string): string {
  return `${keyPrefix}${id}/`;
}

/** The key of a run's record in the prefix (the same name on Redis and etcd). */
export function manifestKey(keyPrefix: string, id: string): string {
  return `${keyPrefix}${MANIFEST_MARK}${id}`;
}

export function formatOwnedKeys(m: OwnedKeys): string {
  return JSON.stringify(m);
}

/**
 * A record read back (from the prefix or a run folder), or null when it is not one of ours in every detail. Anyone
 * who may write under the prefix can write a "record", so nothing in it is trusted to widen what a cleanup deletes:
 * its namespace must be exactly `<keyPrefix><id>/` of the prefix it was read under, and each key must lie in it.
 */
export function parseOwnedKeys(text: string, keyPrefix: string): OwnedKeys | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const m = raw as Partial<Record<keyof OwnedKeys, unknown>> | null;
  if (!m || typeof m !== 'object' || m.format !== 1) return null;
  if (typeof m.id !== 'string' || !ID.test(m.id) || m.keyPrefix !== keyPrefix) return null;
  const namespace = namespaceOf(keyPrefix, m.id);
  if (m.namespace !== namespace) return null;
  if (!Array.isArray(m.keys) || !m.keys.every((k) => typeof k === 'string' && k.startsWith(namespace))) return null;
  const ints = [m.pid, m.pidStart, m.startedAt, m.until];
  if (!ints.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
  if (typeof m.host !== 'string' || typeof m.target !== 'string') return null;
  return {
    format: 1,
    id: m.id,
    target: m.target,
    keyPrefix,
    namespace,
    keys: m.keys as string[],
    host: m.host,
    pid: m.pid as number,
    pidStart: m.pidStart as number,
    startedAt: m.startedAt as number,
    until: m.until as number,
  };
}

/**
 * Whether the run of a record may still be going: on this machine, its harness (pid and start time) is alive; on
 * another, it is before `until`. A cleanup never touches a live run's keys.
 */
export function ownerMayLive(
  m: OwnedKeys,
  here: { host: string; now: number; alive: (pid: number, pidStart: number) => boolean },
): boolean {
  return m.host === here.host ? here.alive(m.pid, m.pidStart) : here.now < m.until;
}

/** The name under the prefix that a record's key carries, or null for any other key. */
export function idOfManifestKey(key: string, keyPrefix: string): string | null {
  const id = key.startsWith(keyPrefix + MANIFEST_MARK) ? key.slice((keyPrefix + MANIFEST_MARK).length) : null;
  return id && ID.test(id) ? id : null;
}
