import { faultFacts } from '../faults/catalogue.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * The live log's line for a fault's start and its end: one sentence a person reads while the run goes ("pause-holder:
 * paused p3 inside its critical section on account 0, for 3000 ms"), where the log used to print the start record's
 * raw parameters (up to 624 characters: keys per node, the aim's times in ns). The record itself is in the history,
 * and `--verbose` prints it as it was (`rawFaultLine`). Pure: the nemesis passes what it journals.
 */

/** The longest the sentence lets a target list or a note run before it says how many more there are. */
const MAX_PART = 140;

interface Aim {
  process: number;
  account: number;
  struck?: string[];
}

function aimOf(params: Record<string, unknown> | undefined): Aim | null {
  const aim = params?.aim;
  if (!isRecord(aim) || typeof aim.process !== 'number' || typeof aim.account !== 'number') return null;
  const struck = Array.isArray(aim.struck) ? aim.struck.filter((s): s is string => typeof s === 'string') : undefined;
  return { process: aim.process, account: aim.account, ...(struck ? { struck } : {}) };
}

/** A list cut to MAX_PART characters: "a, b, c and 4 more". */
function listed(items: readonly string[]): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const next = out ? `${out}, ${items[i]}` : items[i];
    if (next.length > MAX_PART && out) return `${out} and ${items.length - i} more`;
    out = next;
  }
  return out;
}

function clipped(text: string): string {
  return text.length > MAX_PART ? `${text.slice(0, MAX_PART - 1)}…` : text;
}

/** "pause-holder: paused p3 inside its critical section on account 0, for 3000 ms". */
export function faultStartSentence(
  fault: string,
  targets: readonly string[],
  params: Record<string, unknown> | undefined,
  holdMs: number,
  opts: { note?: string; waitsForStory?: boolean } = {},
): string {
  const aim = aimOf(params);
  const template = faultFacts(fault)?.aim?.struck;
  let what: string;
  if (aim && template) {
    const nodes = aim.struck?.length ? listed(aim.struck) : listed(targets);
    const holder = `p${aim.process}`;
    what = template.includes('{process}')
      ? `${template.replace('{process}', holder)} inside its critical section on account ${aim.account}`
      : `${template.replace('{nodes}', nodes)} while ${holder} was inside its critical section on account ${aim.account}`;
  } else {
    what = (faultFacts(fault)?.did ?? 'acted on {targets}').replace('{targets}', listed(targets) || 'nothing');
  }
  // A fault that waits for its story (pause-holder until another client took the lock and wrote) holds at most holdMs.
  const lasting =
    holdMs > 0 ? (opts.waitsForStory ? `, until its story is told (at most ${holdMs} ms)` : `, for ${holdMs} ms`) : '';
  return `${fault}: ${what}${lasting}${opts.note ? ` (${clipped(opts.note)})` : ''}`;
}

function bytesHeld(params: Record<string, unknown>): number | null {
  const held = params.heldBytes ?? params.totalHeldBytes;
  if (typeof held === 'number') return held;
  if (isRecord(held)) return Object.values(held).reduce<number>((n, v) => n + (typeof v === 'number' ? v : 0), 0);
  return null;
}

/** What an `end` record says the fault did, in words: the parts a person checks while the run goes. */
function endFacts(params: Record<string, unknown>): string[] {
  const facts: string[] = [];
  const held = bytesHeld(params);
  if (held !== null) facts.push(`held ${held} bytes`);
  if (typeof params.restartedInMs === 'number') facts.push(`restarted in ${params.restartedInMs} ms`);
  if (params.rejoined === false) facts.push('it did not rejoin');
  if (typeof params.leaderChanges === 'number') facts.push(`${params.leaderChanges} leader changes`);
  if (typeof params.writeHeldMs === 'number') facts.push(`the write was held ${params.writeHeldMs} ms`);
  if (params.endedBy === 'story') facts.push('its story was told');
  if (params.cutShort === true) facts.push("cut short by the run's end");
  return facts;
}

/** "partition: over after 3002 ms; held 412 bytes". */
export function faultEndSentence(
  fault: string,
  params: Record<string, unknown> | undefined,
  lastedMs: number,
  note?: string,
): string {
  const facts = endFacts(params ?? {});
  const said = [...facts, ...(note ? [clipped(note)] : [])];
  return `${fault}: over after ${Math.round(lastedMs)} ms${said.length ? `; ${said.join('; ')}` : ''}`;
}

/** The record as it is journaled — targets, then the parameters as JSON, then the note — for `--verbose`. */
export function rawFaultLine(
  fault: string,
  phase: 'start' | 'end',
  targets: readonly string[],
  params?: Record<string, unknown>,
  note?: string,
): string {
  const p = params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : '';
  return `${fault} ${phase}: ${targets.join(', ')}${p}${note ? ` — ${note}` : ''}`;
}
