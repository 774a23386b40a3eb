import { script } from './script.ts';
import { num, str, bool, yes, strings, opt, stringsRecord, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';
import { adapter } from '../evidence-parts.ts';

/** restart-empty: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGKILL a Redis master holding the lock key, wipe it, restart it empty (see --restart-delay, --redis-persistence)',
  family: 'crash',
  aim: { struck: 'killed {nodes}' },
  hit: 'killed the Redis nodes holding the lock key while its holder was inside its critical section',
  story: [
    {
      id: 'struck',
      says: 'as many of the Redis nodes holding the key as break the lock were killed (and wiped) while the holder was inside its critical section',
    },
    {
      id: 'restarted',
      says: 'they answered again, empty, while the holder was still inside its critical section',
      held: 'they stayed down until every lease they had granted ran out (--restart-delay ≥ TTL), or came back with the key (--redis-persistence=aof-always)',
    },
    {
      ...GRANTED,
      held: "a script's step named a minority of the masters (fewer than break a correct majority): another client asked once they answered again, empty, and was not granted while the holder wrote",
    },
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  script,
  movesClocks: false,
  keepsServerLeases: false,
  // restart-empty only bites when the kill lands inside the holder's ~100 ms critical section (30–45 % of attempts
  // here), so a short run needs many attempts: --nemesis-interval ≤ 500 ms. A restarted master answers again 100–300 ms
  // after the kill here; with the default 100 ms critical section the holder has always written by then, so the kill
  // "hits" (the holder was inside its section) and still can't cost anything — a lock that survives that survived
  // nothing. --think ≥ 0.4 × TTL keeps the section well inside the lock's validity (the holder does hold the lock, as
  // Redlock defines it) and wider than a restart, which is the failure the spec warns of.
  columns: [
    {
      id: 'restart-empty',
      place: 2,
      title: 'Redis restart empty',
      fencing: false,
      maxIntervalMs: 500,
      minThinkTtlFraction: 0.4,
    },
    // A fencing token kept in the same Redis as the lock (simple-redis-mutex's INCR counter) goes back to 1 when that
    // Redis restarts empty: restart-empty's shape, fenced. Only a Redis row with a token is measured here.
    {
      id: 'restart-fenced',
      place: 5,
      title: 'Redis restart empty, --fencing',
      fencing: true,
      maxIntervalMs: 500,
      minThinkTtlFraction: 0.4,
    },
  ],
  scenarios: [
    // As its restart-empty column: fire often, and a section wider than a restart (above). A restart that stays down
    // a TTL leaves the lock unavailable for that long (redlock-npm: 6–7 writes in 10 s, three runs in a row, → 20 s).
    {
      id: 'restart-delay',
      place: 5,
      title: 'restart empty, --restart-delay ≥ TTL',
      fencing: false,
      maxIntervalMs: 500,
      minThinkTtlFraction: 0.4,
      minRestartDelayTtlFraction: 1,
      minTimeLimitS: 20,
    },
    // The fault table's restart-empty cell again, with the strategy's own retry loop in place of its library's: the
    // workaround for redlock-npm's livelock (locks/redlock-npm/row.ts). Only its liveness is remedied: the restart
    // still has no delay, so updates are still lost.
    {
      id: 'restart-retry',
      place: 6,
      title: 'restart empty, --retry=harness',
      fencing: false,
      remedy: { retry: 'harness' },
      maxIntervalMs: 500,
      minThinkTtlFraction: 0.4,
    },
    {
      id: 'restart-aof',
      place: 7,
      title: 'restart, --redis-persistence=aof-always',
      fencing: false,
      remedy: { redisPersistence: 'aof-always' },
      maxIntervalMs: 500,
      minThinkTtlFraction: 0.4,
    },
  ],
  colour: '#ef4444',
  evidence: {
    start: {
      keys: strings,
      holder: str,
      holding: strings,
      masters: num,
      killed: strings,
      /** The servers a scripted step named (`restart-empty A on redis[0,1]`); absent on a free run's shot. */
      named: opt(strings),
      restartDelayMs: num,
      ttlMs: num,
      persistence: str,
      evidenceFrom: opt(str),
      adapter: opt((v) => (Array.isArray(v) ? v.map((x) => adapter(x) ?? {}) : undefined)),
      unreachable: opt(bool),
      wiped: opt(bool),
      aim: readAim,
    },
    end: {
      restartedInMs: num,
      /** On a target: whether the servers answered without the holder's key after the restart. */
      wiped: opt(bool),
      keysAfterRestart: opt(stringsRecord),
      downtimeWaitedOutMs: opt(num),
      interrupted: opt(yes),
    },
  },
} as const satisfies FaultFacts;
