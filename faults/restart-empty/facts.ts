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
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  script,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#ef4444',
  evidence: {
    start: {
      keys: strings,
      holder: str,
      holding: strings,
      masters: num,
      killed: strings,
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
