import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { AFTER_HOLD_MS } from './fault-needs.ts';
import { FAULT_CATALOGUE } from '../faults/catalogue.ts';
import { EXECUTORS, executorIn, runNeeds } from './fault-registry.ts';

const timing = { firstDelayMs: 1000, pauseMs: 3000 };

describe('the fault registry', () => {
  it('has one executor per fault name, under its own name', () => {
    expect(Object.keys(EXECUTORS).sort()).toEqual([...FAULT_NAMES].sort());
    for (const [name, executor] of Object.entries(EXECUTORS)) expect(executor.name).toBe(name);
  });

  it("finds a fault's executor among its file's exports by its name, and says what to add when it is not there", () => {
    expect(executorIn('kill', { helper: () => 0, kill: EXECUTORS.kill })).toBe(EXECUTORS.kill);
    expect(() => executorIn('kill', { kill: EXECUTORS.latency, note: 'x' })).toThrow(
      "faults/kill/inject.ts exports no fault executor named 'kill': every fault of faults/catalogue.ts needs one (export const x: FaultExecutor = { name: 'kill', … })",
    );
  });

  it('the clock faults, and only they, move clocks (and so get the clock shim)', () => {
    const withShim = FAULT_NAMES.filter((f) => FAULT_CATALOGUE[f].movesClocks);
    expect(withShim.sort()).toEqual([
      'clock',
      'clock-freeze-clients',
      'clock-rate',
      'clock-rate-client',
      'clock-rate-waiters',
      'clock-strobe',
    ]);
  });

  it("failover and the server partitions that can split two members need a primary/replica pair; delay-write and the faults on one client's traffic alone need clients on routes of their own", () => {
    // isolate-leader and majority-minority cut the pair's replication link; bridge and majorities-ring need 3 and 5.
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.failoverPair)).toEqual([
      'failover',
      'isolate-leader',
      'majority-minority',
    ]);
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.serverNet)).toEqual([
      'isolate-leader',
      'majority-minority',
      'bridge',
      'majorities-ring',
    ]);
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.ownClientRoutes)).toEqual([
      'delay-write',
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-renew',
      'reply-loss-create',
      'reply-loss-delete',
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
      'reply-loss-etcd-acquire',
      'reply-loss-etcd-renew',
      'reply-loss-etcd-release',
      'hold-request',
      'one-way',
      'reset',
    ]);
  });

  it('the faults whose effect shows after a hold declare a minimum run: first fault + hold + the write after it', () => {
    const withMinRun = FAULT_NAMES.filter((f) => EXECUTORS[f].needs.minRunMs);
    expect(withMinRun.sort()).toEqual(['delay-write', 'kill-holder', 'pause-client', 'pause-holder']);
    for (const f of withMinRun) expect(EXECUTORS[f].needs.minRunMs!(timing)).toBe(1000 + 3000 + AFTER_HOLD_MS);
  });
});

describe('what a run needs', () => {
  it('a run with only non-clock faults needs no shim, no pair, no own routes and no minimum run', () => {
    const needs = runNeeds(['restart-empty', 'kill', 'pause-node', 'partition', 'latency']);
    expect(needs).toMatchObject({ clockShim: false, failoverPair: false, ownClientRoutes: false });
    expect(needs.minRunMs(timing)).toBe(0);
  });

  it('one clock fault among others is enough for the shim', () => {
    expect(runNeeds(['pause-holder', 'restart-empty', 'clock', 'pause-node']).clockShim).toBe(true); // redlock's defaults
    expect(runNeeds(['clock-strobe']).clockShim).toBe(true);
    expect(runNeeds(['pause-holder', 'kill', 'pause-node', 'partition']).clockShim).toBe(false); // zookeeper's defaults
  });

  it('asks for the pair and the routes only when their fault is in the run', () => {
    expect(runNeeds(['failover', 'pause-holder'])).toMatchObject({ failoverPair: true, ownClientRoutes: false });
    expect(runNeeds(['delay-write'])).toMatchObject({ failoverPair: false, ownClientRoutes: true, clockShim: false });
    // The lock's own Postgres sessions get a framed route only for the faults that aim at their statements.
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.lockSessionRoutes)).toEqual([
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
    ]);
    expect(runNeeds(['delay-write']).lockSessionRoutes).toBe(false);
    expect(runNeeds(['reply-loss-pg-unlock'])).toMatchObject({ ownClientRoutes: true, lockSessionRoutes: true });
  });

  it("puts the proxies in the clients' path only for the faults that act there", () => {
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.clientProxies).sort()).toEqual([
      'delay-write',
      'failover',
      'hold-request',
      'latency',
      'one-way',
      'partition',
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-create',
      'reply-loss-delete',
      'reply-loss-etcd-acquire',
      'reply-loss-etcd-release',
      'reply-loss-etcd-renew',
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
      'reply-loss-renew',
      'reset',
    ]);
    expect(runNeeds(['pause-holder', 'restart-empty', 'clock', 'pause-node']).clientProxies).toBe(false);
    expect(runNeeds(['pause-holder', 'kill', 'pause-node', 'partition']).clientProxies).toBe(true);
    expect(runNeeds([]).clientProxies).toBe(false);
  });

  it('widens the critical section only for faults whose story needs one wider than a restart (restart-empty, failover)', () => {
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.minSectionMs)).toEqual(['restart-empty', 'failover']);
    expect(runNeeds(['pause-holder', 'restart-empty']).minSectionMs({ ttlMs: 2000 })).toBe(800);
    expect(runNeeds(['pause-holder', 'clock']).minSectionMs({ ttlMs: 2000 })).toBe(0);
  });

  it('every fault that tells a story says how long its story needs before the clients stop', () => {
    const storied = FAULT_NAMES.filter((f) => FAULT_CATALOGUE[f].story !== null);
    expect(storied.filter((f) => !EXECUTORS[f].needs.shotMs)).toEqual([]);
    const t = { ttlMs: 2000, thinkMs: 100, restartDelayMs: 0 };
    expect(EXECUTORS['pause-holder'].needs.shotMs!(t)).toBe(2000 + AFTER_HOLD_MS);
    expect(EXECUTORS['restart-empty'].needs.shotMs!({ ...t, restartDelayMs: 2000 })).toBe(2000 + 100 + AFTER_HOLD_MS);
  });

  it('has clients send each op at once only when a fault of the run aims by them', () => {
    expect(FAULT_NAMES.filter((f) => EXECUTORS[f].needs.liveOps).sort()).toEqual([
      'clock',
      'clock-rate',
      'clock-rate-client',
      'clock-rate-waiters',
      'delay-write',
      'failover',
      'kill-holder',
      'kill-session',
      'one-way',
      'pause-holder',
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-create',
      'reply-loss-delete',
      'reply-loss-etcd-acquire',
      'reply-loss-etcd-release',
      'reply-loss-etcd-renew',
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
      'reply-loss-renew',
      'reset',
      'restart-empty',
    ]);
    expect(runNeeds(['kill', 'pause-node', 'partition']).liveOps).toBe(false);
    expect(runNeeds(['kill', 'pause-holder']).liveOps).toBe(true);
    expect(runNeeds([]).liveOps).toBe(false);
  });

  it('every fault that waits for a critical section or watches the journal declares liveOps', () => {
    // A fault that aims without it would have its aim refused at run time (CriticalSections.next throws).
    const aims = /\bsections\.next\(|nextKeyHolders\(|journal\.onOp\(/;
    const aiming = FAULT_NAMES.filter((f) =>
      aims.test(fs.readFileSync(new URL(`../faults/${f}/inject.ts`, import.meta.url), 'utf8')),
    );
    expect(aiming.length).toBeGreaterThan(0);
    for (const f of aiming) expect(EXECUTORS[f].needs.liveOps, f).toBe(true);
  });

  it("takes the longest of the faults' minimum runs, and nothing for no faults", () => {
    expect(runNeeds(['clock', 'pause-client']).minRunMs({ firstDelayMs: 500, pauseMs: 1200 })).toBe(2700);
    const none: FaultName[] = [];
    expect(runNeeds(none)).toMatchObject({ clockShim: false, failoverPair: false, ownClientRoutes: false });
    expect(runNeeds(none).minRunMs(timing)).toBe(0);
  });
});
