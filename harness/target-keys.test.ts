import { describe, expect, it } from 'vitest';
import type { TargetSpec } from '../target/target-spec.ts';
import { plannedKeys } from './target-commands.ts';
import { prefixedByUs } from './target-plan.ts';

/** Only the prefix matters to the keys a run plans (each run's namespace under it: run-<id>/). */
const spec = { keyPrefix: 'fp-' } as TargetSpec;

describe("the keys a run creates on a target (each built-in's row says its own)", () => {
  it('names the keys of the locks fencepost prefixes itself, by its row', () => {
    expect(plannedKeys(spec, 'redis', 2)).toEqual(['fp-run-<id>/lock:account-0, fp-run-<id>/lock:account-1']);
    expect(plannedKeys(spec, 'redlock-npm', 5)).toEqual([
      'fp-run-<id>/fencepost:redlock-npm:account-0, fp-run-<id>/fencepost:redlock-npm:account-1, fp-run-<id>/fencepost:redlock-npm:account-2 … account-4',
    ]);
    expect(plannedKeys(spec, 'etcd', 1)).toEqual(['fp-run-<id>/lock/account-0']);
    expect(['redis', 'redlock', 'redlock-npm', 'etcd'].filter(prefixedByUs)).toHaveLength(4);
  });

  it("leaves the others' keys to the lock, which must honour ctx.keyPrefix", () => {
    expect(plannedKeys(spec, 'zookeeper', 1)).toEqual([
      "keys the lock itself names, each beginning with fp-run-<id>/ (ctx.keyPrefix; the server's fence refuses any key outside fp-)",
    ]);
    expect(['zookeeper', 'redis-py', './my-lock.ts'].some(prefixedByUs)).toBe(false);
  });
});
