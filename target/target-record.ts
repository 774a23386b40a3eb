/**
 * What the test record keeps of a run against a target (test.json's `target`). Its own file on target/'s floor, so
 * store/test-json.ts, which declares test.json, reads it from below instead of reaching up into harness/, whose
 * target session (harness/target-session.ts) writes it.
 */
export interface TargetRecord {
  name: string;
  file: string;
  keyPrefix: string;
  /** The run's own namespace under the prefix (`<keyPrefix>run-…/`): every key the lock made is in it. */
  namespace?: string;
  servers: { name: string; kind: string; host: string; port: number; node: string }[];
  /** The adapter of each server action the run's faults use. */
  adapters: Record<string, string>;
  /** Whether the servers refused a read, a write and a delete outside the prefix, per server. */
  fence: { server: string; fence: string; said: string }[];
  /** Whether fencepost's own code puts the lock's keys under the prefix, or the lock's author promises it does. */
  prefixedBy: 'fencepost' | 'the lock';
  /** The run's keys left after its removal (0 unless a server did not answer), and how many it removed. */
  keysLeft?: number;
  keysRemoved?: Record<string, number>;
  /** The servers whose last heal failed: they may still be stopped (checkers/left-faulted.ts). */
  leftFaulted?: { server: string; action: string; heal: string; error: string }[];
  /** Why the run was aborted by the target's conditions, when it was. */
  aborted?: string;
}
