import { FAULT_CATALOGUE, type FaultName } from '../faults/catalogue.ts';
import type { FaultFacts, ScriptFacts } from '../faults/fault-facts.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { DRIVEN_STEPS, type DrivenStepName } from '../workloads/driven-client.ts';
import { didYouMean as nearest } from '../harness/option-table.ts';

/**
 * The steps of a scripted scenario, one line each, as a person writes the story: `A acquire`, `pause A`,
 * `wait lease-expired A`, `B write`, `resume A`. Each step starts when the one before it is seen complete in the
 * history (scenario/scenario-run.ts); `start …` starts a step without waiting for it, `wait …` waits for it later.
 *
 *   A acquire | A read | A write | A release          a client's step; done at its completion
 *   start A write … wait A write                      a step whose completion comes later (a held write)
 *   try B acquire                                     B asks for the lock another client holds: granted, or kept out
 *   wait lease-expired A                              a TTL since A was stopped (its write held, or its acquire)
 *   wait A renew                                      A's watchdog (--watchdog) renewed, or failed to, since the step before
 *   pause A … resume A                                pause-holder on A's critical section
 *   hold A … deliver A                                delay-write: everything A sends is held in flight
 *   kill A                                            kill-holder
 *   restart-empty A [on redis[0..2]]                  A's key's Redis nodes, or those named (even a minority), wiped
 *   clock +60s A [on redis[1]] … clock reset          the clocks of the nodes holding A's key jump
 *   failover A … heal failover                        (start failover A before A acquires: it cuts replication first)
 *   start reply-loss-acquire A … A acquire           armed before A's acquire; its failing is the story (dropsReplyTo)
 *   start hold-request A SET … heal hold-request A    A's next SET held in flight (inside its acquire), then delivered
 *   one-way A … wait A renew … heal one-way A        replies to A held while its requests flow (--watchdog)
 *   reset A                                           A's Redis connections reset (RST) in its section
 *   <fault> … heal <fault>                            any other fault of the catalogue, on the target it picks
 *
 * Pure: the parser knows no lock; the servers a step names are checked against the lock's by scenario-file.ts.
 */

/** What a step waits for before the next one starts: the thing itself, or only that it started. */
export type Until = 'done' | 'started';

/** A step as its words say it. */
export type StepBody =
  | { kind: 'client'; client: string; f: DrivenStepName; until: Until }
  | { kind: 'await-client'; client: string; f: DrivenStepName }
  /**
   * `try B acquire`: B asks for a lock another client holds (after `start B acquire`: the acquire B has in flight).
   * Granted while the holder's lease is young → done (the lock let two clients in; the story goes on with B's
   * section). Not granted by half the holder's lease → held: the lock kept B out, and B's steps up to its release are
   * skipped. A script can thus tell a lock that excludes from one that
   * does not without a branch, and a correct lock is never waited out to its TTL (which would make any lease lock lose).
   */
  | { kind: 'try-acquire'; client: string }
  | { kind: 'lease-expired'; client: string }
  | { kind: 'await-renew'; client: string }
  | {
      kind: 'strike';
      fault: FaultName;
      client: string;
      /** The servers the step names (`on redis[0..2]`): the fault strikes only these. */
      servers: string[] | null;
      /** `clock +60s`: the jump in seconds. */
      offsetS: number | null;
      /** `hold-request A SET`: the request it aims at, by its command. */
      request?: string;
      until: Until;
    }
  | { kind: 'await-strike'; fault: FaultName; client: string }
  | { kind: 'heal'; fault: FaultName; client: string | null }
  | { kind: 'fault'; fault: FaultName; until: Until };

/** A step of a scenario: what it says, its position (0-based) and its line as written. */
export type ScenarioStep = StepBody & { index: number; text: string };

/** How a script writes each fault, beyond its name: its facts' `script` (faults/<name>/script.ts). */
const scriptOf = (f: FaultName): ScriptFacts => (FAULT_CATALOGUE[f] as FaultFacts).script ?? {};
/** The words each fault's script facts give, and the fault each one names. */
const wordsOf = (word: (s: ScriptFacts) => string | undefined): Readonly<Record<string, FaultName>> =>
  Object.fromEntries(FAULT_NAMES.flatMap((f) => (word(scriptOf(f)) ? [[word(scriptOf(f))!, f]] : [])));
/** Words a step may begin with that name an aimed fault, beside the faults' own names. */
const STRIKE_VERBS = wordsOf((s) => s.verb);
/** Words that heal the aimed fault a verb started. */
const HEAL_VERBS = wordsOf((s) => s.healVerb);
/** Aimed faults whose step ends with their heal: restart-empty's story goes on once the nodes are back. */
export const HEALS_AT_ONCE: ReadonlySet<FaultName> = new Set(FAULT_NAMES.filter((f) => scriptOf(f).healsAtOnce));
/** Aimed faults that can be told which servers to strike (`on …`): they choose among the nodes holding the key. */
const NAMES_SERVERS: ReadonlySet<FaultName> = new Set(FAULT_NAMES.filter((f) => scriptOf(f).namesServers));
/** A fault whose strike takes a jump (`clock +60s A`) and whose `<name> reset` heals it. */
const jumpOf = (word: string): FaultName | undefined =>
  FAULT_NAMES.find((f) => f === word && scriptOf(f).jump !== undefined);

/** A request's command as a step names it (`SET`, `create`): a word of letters. */
const REQUEST_NAME = /^[A-Za-z]+$/;

/** A client's name: a capital letter and letters or digits (`A`, `B`, `Holder`), so it never reads as a verb. */
export const CLIENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** A fault that strikes a holder inside its critical section: it aims at the lock, or tells a holder's story (delay-write). */
export const isAimed = (f: FaultName): boolean => FAULT_CATALOGUE[f].aim !== null || FAULT_CATALOGUE[f].story !== null;

/**
 * The fault a step's first word names. `alone` (no client follows): a fault's own name that is not aimed wins over
 * another fault's verb spelt the same — `kill` alone is the server kill, `kill A` kill-holder's strike.
 */
function faultOf(word: string, alone = false): FaultName | null {
  const named = (FAULT_NAMES as readonly string[]).includes(word) ? (word as FaultName) : null;
  if (alone && named && !isAimed(named)) return named;
  if (Object.hasOwn(STRIKE_VERBS, word)) return STRIKE_VERBS[word];
  return named;
}

/** `redis[0..2]`, `redis[1]`, `redis[0,2]`, `zk[1], zk[2]` → node names; null when it is not a server list. */
export function serverNames(text: string): string[] | null {
  const names: string[] = [];
  const re = /(redis|etcd|zk)\[(\d+)(?:\.\.(\d+)|((?:,\d+)*))\]/gy;
  const compact = text.replace(/\s+/g, '').replace(/\],(?=[a-z])/g, ']');
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(compact)) !== null) {
    const [, kind, a, b, list] = m;
    const from = Number(a);
    const idx =
      b !== undefined ? range(from, Number(b)) : [from, ...(list ? list.slice(1).split(',').map(Number) : [])];
    if (!idx.length) return null;
    names.push(...idx.map((i) => `${kind}[${i}]`));
    end = re.lastIndex;
  }
  return end === compact.length && names.length ? [...new Set(names)] : null;
}

const range = (a: number, b: number): number[] => (b < a ? [] : Array.from({ length: b - a + 1 }, (_, i) => a + i));

type Parsed = StepBody | string;

/** One step's words → the step, or what is wrong with it (said so a person can fix the line). */
export function parseStep(text: string): Parsed {
  const words = text.trim().split(/\s+/);
  if (words[0] === 'start') {
    const rest = parseStep(words.slice(1).join(' '));
    if (typeof rest === 'string') return rest;
    if (rest.kind !== 'client' && rest.kind !== 'strike' && rest.kind !== 'fault')
      return '`start` goes before a client step or a fault (start A write, start failover A)';
    return { ...rest, until: 'started' };
  }
  if (words[0] === 'try')
    return words.length === 3 && CLIENT_NAME.test(words[1]) && words[2] === 'acquire'
      ? { kind: 'try-acquire', client: words[1] }
      : "`try` goes before a client's acquire: try B acquire";
  if (words[0] === 'wait') return parseWait(words.slice(1));
  if (words[0] === 'heal') return parseHeal(words.slice(1));
  if (Object.hasOwn(HEAL_VERBS, words[0]))
    return words.length === 2 && CLIENT_NAME.test(words[1])
      ? { kind: 'heal', fault: HEAL_VERBS[words[0]], client: words[1] }
      : `\`${words[0]}\` names one client: ${words[0]} A`;
  const jumping = jumpOf(words[0]);
  if (jumping) return parseJump(jumping, words.slice(1));
  if (CLIENT_NAME.test(words[0])) {
    const f = words[1] as DrivenStepName;
    if (words.length === 2 && (DRIVEN_STEPS as readonly string[]).includes(f))
      return { kind: 'client', client: words[0], f, until: 'done' };
    return `a client's step is one of ${DRIVEN_STEPS.map((s) => `${words[0]} ${s}`).join(', ')}`;
  }
  return parseFault(words);
}

function parseWait(words: string[]): Parsed {
  if (words[0] === 'lease-expired')
    return words.length === 2 && CLIENT_NAME.test(words[1])
      ? { kind: 'lease-expired', client: words[1] }
      : '`wait lease-expired` names one client: wait lease-expired A';
  if (words.length === 2 && CLIENT_NAME.test(words[0]) && words[1] === 'renew')
    return { kind: 'await-renew', client: words[0] };
  if (words.length === 2 && CLIENT_NAME.test(words[0]) && (DRIVEN_STEPS as readonly string[]).includes(words[1]))
    return { kind: 'await-client', client: words[0], f: words[1] as DrivenStepName };
  const fault = faultOf(words[0] ?? '');
  if (fault && words.length === 2 && CLIENT_NAME.test(words[1]))
    return { kind: 'await-strike', fault, client: words[1] };
  return '`wait` is followed by lease-expired A, A renew, a client step started earlier (wait A write) or a fault started earlier (wait failover A)';
}

function parseHeal(words: string[]): Parsed {
  const fault = faultOf(words[0] ?? '', words.length === 1);
  if (!fault || words.length > 2 || (words[1] !== undefined && !CLIENT_NAME.test(words[1])))
    return `\`heal\` names a fault of the catalogue, and for an aimed one its client: heal failover, heal pause-holder A${didYouMean(words[0] ?? '')}`;
  return { kind: 'heal', fault, client: words[1] ?? null };
}

function parseJump(fault: FaultName, words: string[]): Parsed {
  if (words.length === 1 && words[0] === 'reset') return { kind: 'heal', fault, client: null };
  const m = /^\+(\d+)s$/.exec(words[0] ?? '');
  if (!m || Number(m[1]) < 1 || !CLIENT_NAME.test(words[1] ?? '')) return scriptOf(fault).jump!.usage;
  const servers = onServers(words.slice(2));
  if (typeof servers === 'string') return servers;
  return { kind: 'strike', fault, client: words[1], servers, offsetS: Number(m[1]), until: 'done' };
}

function parseFault(words: string[]): Parsed {
  const fault = faultOf(words[0], words.length === 1);
  if (!fault) return `unknown step${didYouMean(words[0])}`;
  if (!isAimed(fault)) {
    if (words.length > 1)
      return `${fault} picks its own target (it is not aimed at a holder): write it alone, \`${fault}\``;
    return { kind: 'fault', fault, until: 'done' };
  }
  if (!CLIENT_NAME.test(words[1] ?? ''))
    return `${fault} is aimed at a holder inside its critical section: name it, \`${words[0]} A\``;
  const request = scriptOf(fault).request;
  if (request) {
    const command = words[2] ?? '';
    if (words.length !== 3 || !REQUEST_NAME.test(command)) return request.usage;
    return { kind: 'strike', fault, client: words[1], servers: null, offsetS: null, request: command, until: 'done' };
  }
  const servers = onServers(words.slice(2));
  if (typeof servers === 'string') return servers;
  if (servers && !NAMES_SERVERS.has(fault))
    return `${fault} chooses its servers itself; \`on …\` applies to ${[...NAMES_SERVERS].join(' and ')}`;
  return { kind: 'strike', fault, client: words[1], servers, offsetS: null, until: 'done' };
}

function onServers(words: string[]): string[] | null | string {
  if (!words.length) return null;
  const names = words[0] === 'on' ? serverNames(words.slice(1).join(' ')) : null;
  return names ?? 'servers are named after `on`: on redis[0..2], on redis[1], on zk[0],zk[2]';
}

/**
 * The words a misspelt step is matched against, the first of equally near ones winning: the paired strike verbs
 * (`pause … resume`, `hold … deliver`) before the lone ones (`kill`), as the grammar above lists them.
 */
const VOCABULARY = [
  ...Object.keys(STRIKE_VERBS).sort(
    (a, b) => Number(!scriptOf(STRIKE_VERBS[a]).healVerb) - Number(!scriptOf(STRIKE_VERBS[b]).healVerb),
  ),
  ...Object.keys(HEAL_VERBS),
  'start',
  'try',
  'wait',
  'heal',
  ...FAULT_NAMES.filter((f) => scriptOf(f).jump),
  ...FAULT_NAMES,
];

function didYouMean(word: string): string {
  const near = nearest(word, VOCABULARY);
  return near ? ` (did you mean \`${near.replace(/^ Did you mean (.*)\?$/, '$1')}\`?)` : '';
}
