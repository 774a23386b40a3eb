/**
 * Every fault `--nemesis` accepts, with one line each for `--help`. The executors live beside this file, one
 * per fault; this list is the CLI's contract.
 */
export const FAULTS = {
  'pause-holder':
    'SIGSTOP the client inside its critical section (after its read, before its write) for longer than the TTL',
  'pause-client': 'SIGSTOP a random client process',
  'pause-node': 'SIGSTOP a server: a Redis master, the etcd or ZooKeeper leader, or Postgres (all its processes)',
  'restart-empty':
    'SIGKILL a Redis master holding the lock key, wipe it, restart it empty (see --restart-delay, --redis-persistence)',
  kill: 'SIGKILL and restart (with data, after --restart-delay) an etcd or ZooKeeper node, the leader included; Postgres for --lock=postgres|none',
  clock: "jump the wall clock of the lock's Redis node(s) forward (LD_PRELOAD shim; etcd ignores it)",
  'clock-strobe': "oscillate the wall clocks of the lock's servers and of every client between +offset and real time",
  failover: 'kill the Redis primary and promote its replica, losing unreplicated lock keys',
  partition: "cut client↔server traffic through the harness's TCP proxies (connections hang)",
  latency: "delay client↔server traffic through the harness's TCP proxies",
  'delay-write':
    'hold everything the client inside its critical section sends (its write included) in flight for --pause ms, then deliver it: the write arrives after the lease ran out',
  'isolate-leader':
    'cut the current leader (etcd, ZooKeeper; Redis: the primary from its replica) off from the other servers for --pause ms; clients keep talking to every server (root, local backend)',
  'majority-minority': 'split the servers (etcd, ZooKeeper) into a random majority and minority for --pause ms (root)',
  bridge: 'split the servers into two halves joined by one member that hears both, for --pause ms (3+ members; root)',
  'majorities-ring':
    'every server hears a majority, no two the same one, for --pause ms (5 members: --etcd-nodes=5 / --zk-nodes=5; root)',
} as const;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];
