import fs from 'node:fs';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { readExpect, type ReplayExpect } from './scenario-expect.ts';
import { CLIENT_NAME, parseStep, type ScenarioStep } from './scenario-steps.ts';
import { scriptProblems } from './script-order.ts';
import { SCENARIO_OPTIONS } from '../harness/reproduce-options.ts';
import { defineFormat } from '../common/file-format.ts';

/**
 * A scenario file: a failure's story scripted with named clients (scenarios/*.json; `repro` writes one into every
 * bundle). JSON, versioned, every field checked; a problem is a sentence naming the field or the step.
 *
 *   {
 *     "fencepost": "scenario", "version": 1,
 *     "name": "paused-holder",
 *     "shows": "what the story shows, in words (the file's comment)",
 *     "lock": "redis",                       optional: the lock it was written for (--lock overrides)
 *     "clients": ["A", "B"],                 client slots 0, 1, … in this order
 *     "options": { "ttl": 2000 },            run options by their CLI names (ttl, think, fencing, watchdog, …)
 *     "steps": ["A acquire", "A read", "pause A", …],
 *     "expect": { "checker": "lost-updates", "anomaly": "lost-update", "story": "pause-holder" }
 *   }
 */
export const SCENARIO_FORMAT = 'scenario';
export const SCENARIO_VERSION = 1;

export interface Scenario {
  name: string;
  shows: string;
  lock: string | null;
  clients: string[];
  /** Run options by their CLI names, as `--name=value` would give them. */
  options: Readonly<Record<string, string | number | boolean>>;
  steps: ScenarioStep[];
  /**
   * What the scenario reproduces (scenario/scenario-expect.ts): a failure's signature, a lost-replies finding, or `clean`;
   * null: any failure counts, and the replay names what it saw.
   */
  expect: ReplayExpect | null;
  /** The faults its steps use, in catalogue order: the run prepares for them as for --nemesis. */
  faults: FaultName[];
}

const KEYS = ['fencepost', 'version', 'name', 'shows', 'lock', 'clients', 'options', 'steps', 'expect'] as const;

export type ScenarioOrProblems = { scenario: Scenario } | { problems: string[] };

/** A parsed scenario file → the scenario, or every problem found (each names its field or step). Pure. */
export function scenarioFromJson(raw: unknown): ScenarioOrProblems {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return {
      problems: ['a scenario is a JSON object { "fencepost": "scenario", "version": 1, "clients": […], "steps": […] }'],
    };
  const r = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(r))
    if (!(KEYS as readonly string[]).includes(k)) problems.push(`\`${k}\`: not a scenario field (${KEYS.join(', ')})`);
  if (r.fencepost !== SCENARIO_FORMAT) problems.push(`\`fencepost\` must be "${SCENARIO_FORMAT}" (what the file is)`);
  if (r.version !== SCENARIO_VERSION)
    problems.push(
      `\`version\` ${JSON.stringify(r.version)}: this fencepost reads scenario version ${SCENARIO_VERSION}${typeof r.version === 'number' && r.version > SCENARIO_VERSION ? ' (the file is from a newer fencepost)' : ''}`,
    );
  const text = (k: string, required: boolean): string => {
    if (r[k] === undefined && !required) return '';
    if (typeof r[k] !== 'string' || (r[k] as string).trim() === '')
      problems.push(`\`${k}\` must be a non-empty string`);
    return typeof r[k] === 'string' ? (r[k] as string) : '';
  };
  const name = text('name', true);
  const shows = text('shows', false);
  const lock = r.lock === undefined ? null : text('lock', true);
  const clients = readClients(r.clients, problems);
  const options = readOptions(r.options, problems);
  const steps = readSteps(r.steps, problems);
  let expect: ReplayExpect | null = null;
  if (r.expect !== undefined && r.expect !== null) {
    const read = readExpect(r.expect);
    if ('problem' in read) problems.push(`\`expect\`: ${read.problem}`);
    else expect = read.expect;
  }
  if (!problems.length) problems.push(...scriptProblems(steps, clients));
  if (steps.some((s) => s.kind === 'await-renew') && options.watchdog !== true)
    problems.push('`wait <client> renew` waits for a watchdog: set "watchdog": true in `options`');
  if (problems.length) return { problems };
  const used = new Set(steps.flatMap((s) => ('fault' in s ? [s.fault] : [])));
  const faults = FAULT_NAMES.filter((f) => used.has(f));
  return { scenario: Object.freeze({ name, shows, lock, clients, options, steps, expect, faults }) };
}

/**
 * A scenario file, declared once (common/file-format.ts): a row per field of KEYS (one added there without its row
 * does not compile), the docs' table of them (docs/reproductions.md, by `npm run docs:generate`), and its decoder,
 * scenarioFromJson.
 */
export const SCENARIO_FILE = defineFormat<Partial<Record<(typeof KEYS)[number], unknown>>, ScenarioOrProblems>({
  file: 'scenario.json',
  what: "a failure's story scripted with named clients (`scenarios/*.json`; `repro` writes one into every bundle).",
  versionField: 'version',
  current: SCENARIO_VERSION,
  versions: [{ version: 1, what: 'the first; any other version is refused, naming the one this fencepost reads' }],
  fields: {
    fencepost: `always \`"${SCENARIO_FORMAT}"\`: what the file is`,
    version: 'the format number (above)',
    name: "the scenario's name",
    shows: "(optional) what the story shows, in words: the file's comment",
    lock:
      '(optional) the lock it was written for; `--lock` on the command line wins. A path (a plugin, a manifest, ' +
      '`exec:program`) is relative to the scenario file, so a scenario travels with its lock',
    clients: 'client names (a capital letter, then letters or digits), client slots 0, 1, … in this order',
    options:
      `(optional) run options by their command-line names: ${SCENARIO_OPTIONS.map((o) => `\`${o}\``).join(', ')}. ` +
      "The command line wins over them. Clients, faults, accounts and duration are the script's (`--concurrency`, " +
      '`--nemesis`, `--accounts`, `--time-limit` beside `--scenario` are refused); every client acts on account 0',
    steps: 'the script, a step a line of text ("Steps", below)',
    expect:
      '(optional) what the scenario reproduces: a failure, as a signature (below); a finding of the lost-replies ' +
      'checker, `{ "checker": "lost-replies", "anomaly": "orphaned-lock" }` (or `never-released`, ' +
      '`released-another`, `double-ownership`), which counts whatever the verdict; or `"clean"`: no failure and no ' +
      'such finding, what a lock that recovers by design shows. Without it, `replay` counts any failure and names ' +
      'what it saw',
  },
  decode: (raw) => scenarioFromJson(raw),
});

function readClients(raw: unknown, problems: string[]): string[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > 16) {
    problems.push('`clients` must list 1 to 16 client names, e.g. ["A", "B"]');
    return [];
  }
  for (const c of raw)
    if (typeof c !== 'string' || !CLIENT_NAME.test(c))
      problems.push(`client ${JSON.stringify(c)}: a name is a capital letter and letters or digits (A, B, Holder)`);
  if (new Set(raw).size !== raw.length) problems.push('`clients` names a client twice');
  return raw.map(String);
}

function readOptions(raw: unknown, problems: string[]): Record<string, string | number | boolean> {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push('`options` must be an object of run options by their CLI names, e.g. { "ttl": 2000 }');
    return {};
  }
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!(SCENARIO_OPTIONS as readonly string[]).includes(k))
      problems.push(
        `option \`${k}\`: a scenario sets only ${SCENARIO_OPTIONS.join(', ')} (its clients, faults and steps are the script's; --backend, --results and --seed the command line's)`,
      );
    else if (!['string', 'number', 'boolean'].includes(typeof v))
      problems.push(`option \`${k}\`: a string, a number or true/false`);
    else out[k] = v as string | number | boolean;
  }
  return out;
}

function readSteps(raw: unknown, problems: string[]): ScenarioStep[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push('`steps` must be a non-empty array of step lines, e.g. ["A acquire", "A read", "pause A", …]');
    return [];
  }
  const steps: ScenarioStep[] = [];
  raw.forEach((line, index) => {
    if (typeof line !== 'string') {
      problems.push(`step ${index + 1}: a step is a line of text, got ${JSON.stringify(line)}`);
      return;
    }
    const parsed = parseStep(line);
    if (typeof parsed === 'string') problems.push(`step ${index + 1} "${line}": ${parsed}`);
    else steps.push({ ...parsed, index, text: line.trim() });
  });
  return steps;
}

/** The scenario in `file`, or a problem list that names the file (the caller makes it a 254). */
export function readScenarioFile(file: string): ScenarioOrProblems {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { problems: [`cannot read it: ${(err as NodeJS.ErrnoException).code ?? String(err)}`] };
  }
  try {
    return SCENARIO_FILE.decode(JSON.parse(text), file);
  } catch (err) {
    return { problems: [`not JSON: ${(err as Error).message}`] };
  }
}
