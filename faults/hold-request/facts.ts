import { num, opt, str, strings, yes } from '../evidence-fields.ts';
import type { FaultFacts } from '../fault-facts.ts';
import { script } from './script.ts';

/** hold-request: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "hold a client's next request to the lock's servers (a script names it by its command: `hold-request A SET`) in flight on its own proxies, before the server sees it, for --pause ms (a script: until its heal), then deliver it: it arrives after whatever the others did meanwhile",
  family: 'network',
  did: 'holding the next {targets} request',
  aim: null,
  hit: "held a client's request in flight and delivered it",
  story: [
    {
      id: 'request-held',
      says: "a client's request (the one named, else its next) left it and was held in flight by its own proxy before the server saw any of it",
    },
    { id: 'delivered', says: 'the held request and what followed it were delivered with the clients still running' },
  ],
  storyLimits:
    'aims by the request framing of Redis (RESP) and ZooKeeper only; a request inside one client step (the SET of an acquire that GETs first) is reached only this way, by its command',
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#4d7c0f',
  evidence: {
    start: {
      slot: num,
      process: num,
      /** The command aimed at (`SET`), or `any`: the client's next request. */
      command: str,
      /** The nodes whose route caught the request. */
      heldOn: strings,
      /** The request's key (its second word), when it has one. */
      key: opt(str),
      /** When the request was caught, on the history's clock (ns): the client op in progress then sent it. */
      heldAt: num,
    },
    end: {
      process: num,
      /** How long the request was held, from its catch to its delivery. */
      heldMs: num,
      /** The run's end cut the hold short. */
      cutShort: opt(yes),
    },
  },
} as const satisfies FaultFacts;
