import { num, str, strings, opt, numberRecord, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';

/** clock-rate: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "run the clock of the servers holding the lock at --clock-rate × real speed while its holder is inside its critical section (LD_PRELOAD shim, no jump): Redis nodes' wall clock, ZooKeeper's leader's whole JVM (its elapsed-time clock and its waits), Postgres's wall clock for a lease on the database's time; then back to real speed from where it got",
  family: 'clock',
  aim: { struck: 'ran the clock of {nodes} at the rate' },
  hit: "ran the clock of a node holding the lock at the rate, proven by the slope of that clock read from outside (a Redis probe key's PTTL, ZooKeeper's mntr uptime, Postgres's clock_timestamp()), while its holder was inside its critical section",
  story: [
    {
      id: 'struck',
      says: "the clocks of the nodes holding the lock ran at the rate while the holder was inside its critical section: each node read its shimmed clock, and the clock its leases run on, read from outside (a Redis probe key's PTTL, ZooKeeper's mntr zk_uptime, Postgres's clock_timestamp()), moved at the rate (±5 %) on the harness's clock",
    },
    {
      id: 'lease-expired',
      says: "the holder was still inside its section when its lease, on the server's clock at the rate, expired: the key's (or lease row's) TTL left at the strike, divided by the rate, ran out before the holder wrote; on ZooKeeper, another client was granted while the holder had not yet written — its session expired on the leader",
      held: "its lease was kept in time: a renewal of its watchdog succeeded after the strike, before the holder's write, and no other client was granted meanwhile; on ZooKeeper, the holder wrote first — its client's pings kept its session alive",
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  storyLimits:
    "strikes Redis, ZooKeeper (the leader) and Postgres; etcd is refused (a Go binary: the shim cannot move it), and so is a lock kept in Postgres whose lease is not on the server's clock (an advisory lock, a client-time lease: the row's databaseClock); ZooKeeper's pings are not in the history, so its lease step is read from who was granted",
  movesClocks: true,
  atClockRate: true,
  keepsServerLeases: false,
  colour: '#7e22ce',
  evidence: {
    start: {
      rate: num,
      /** The run's TTL: what the key's life at the rate is counted from (absent before 2026-12-06). */
      ttlMs: opt(num),
      /** Which clocks the rate moved, and whether the process's waits were scaled with them. */
      clocks: strings,
      scope: str,
      keys: opt(strings),
      holder: opt(str),
      holding: opt(strings),
      aim: readAim,
    },
    end: {
      /** Per struck node: how fast its clock, read from outside (nemesis/server-clock-probe.ts), moved per ms of the harness's clock while the rate held. */
      slopes: numberRecord,
      /** Per node: the harness time between the two PTTL reads the slope is from, in ms. */
      probeMs: numberRecord,
      /** Per node: clock reads the node served through the shim while the rate held (0: the rate never reached it). */
      reads: numberRecord,
      /** Per node: its time (Redis `TIME`, ZooKeeper's uptime, Postgres's clock_timestamp()) right before and right after the rate went back to 1, µs — the clock never stepped back. */
      timeBeforeHealUs: numberRecord,
      timeAfterHealUs: numberRecord,
      /** Per node: how far its wall clock is ahead of real time once the rate is back to 1 (the drift it gathered), ms. */
      driftMs: numberRecord,
    },
  },
} as const satisfies FaultFacts;
