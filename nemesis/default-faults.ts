import type { FaultName } from './fault-names.ts';

/**
 * The faults that matter to each strategy — the columns of the oracle where its cell is interesting — used when
 * --nemesis isn't given. A plugin gets the faults every lock must survive to be called safe.
 */
const DEFAULTS: Record<string, FaultName[]> = {
  none: ['pause-holder', 'pause-client'],
  // Single Redis: lost under a paused holder, a restart without the key, a clock jump, and a failover.
  redis: ['pause-holder', 'restart-empty', 'clock', 'failover'],
  // Redlock: the spec's own caveats — pauses, restarts without persistence, clock jumps — plus a slow master.
  redlock: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  'redlock-npm': ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  // Linearizable services: the holder pause is the one that matters (fencing catches it); leader loss and
  // client partitions must not break them; the clock jump shows etcd's immunity.
  etcd: ['pause-holder', 'kill', 'pause-node', 'partition', 'clock'],
  zookeeper: ['pause-holder', 'kill', 'pause-node', 'partition'],
  // Its own fence: safe under everything, so it gets everything that applies.
  postgres: ['pause-holder', 'pause-client', 'pause-node', 'kill', 'partition', 'latency', 'clock'],
};

const PLUGIN_DEFAULT: FaultName[] = ['pause-holder', 'pause-client', 'partition'];

export function defaultFaults(lock: string): FaultName[] {
  return [...(DEFAULTS[lock] ?? PLUGIN_DEFAULT)];
}
