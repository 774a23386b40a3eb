import { EXIT } from '../common/exit-codes.ts';
import { runTiming, type RunTiming } from '../common/run-timing.ts';
import { FAULT_ALIASES } from '../faults/fault-names.ts';
import { FAULT_CATALOGUE } from '../faults/catalogue.ts';
import { ACQUIRE_GRACE_MS } from '../workloads/foreign/protocol.ts';
import { CONNECT_TIMEOUT_MIN_MS, replyTimeoutMs } from '../workloads/foreign/foreign-strategy.ts';
import { CHECK_ACQUIRE_TIMEOUT_MS, CHECK_REPLY_MS, CHECK_TTL_MS } from '../harness/lock-check-steps.ts';
import { optionRows, type OptionSpec } from '../harness/option-table.ts';
import type { CommandHelp } from './command-module.ts';
import { commandModule, COMMANDS, type CommandName } from './command-table.ts';
import { commandOptions, OPTION_TAKERS, OPTIONS, SUBCOMMANDS } from './command-line.ts';

/**
 * The reference tables of docs/cli.md, docs/faults.md and docs/protocol.md, written from the CLI's own tables (the
 * option rows, the subcommands, the fault catalogue, the timing rules, lock-check's constants), so a page cannot say
 * what the code does not: generated-docs.ts puts them between their markers and its test fails on drift.
 */

/** A markdown table cell: pipes escaped, newlines flattened. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** The commands whose options the command line reads: a run, then the subcommands in their refusals' order. */
const OWN_TABLES: readonly CommandName[] = ['run', ...OPTION_TAKERS];

/** Every option: its flag, default, what it does, and the commands that take it. */
export function optionsMarkdown(): string {
  const takers = (o: OptionSpec) =>
    OWN_TABLES.filter((c) => commandOptions(c).some((x) => x.name === o.name))
      .map((c) => (c === 'run' ? 'a run' : c))
      .join(', ');
  const rows = OPTIONS.map((o) => {
    const [flag, help] = optionRows([o])[0];
    return `| \`${cell(flag)}\` | ${cell(help)} | ${takers(o)} |`;
  });
  // The commands that parse their own arguments: their options that are not a run's.
  const readers = (Object.keys(COMMANDS) as CommandName[]).filter((c) => commandModule(c).passThrough);
  const own = readers.flatMap((c) =>
    optionRows(commandOptions(c).filter((o) => o.name !== 'help' && !OPTIONS.some((x) => x.name === o.name))).map(
      ([flag, help]) => `| \`${cell(flag)}\` | ${cell(help)} | ${c} |`,
    ),
  );
  return ['| option | what it does | taken by |', '|---|---|---|', ...rows, ...own].join('\n');
}

/** The subcommands: how each is called, what it does, and what its exit codes mean (a verb's on a row of its own). */
export function subcommandsMarkdown(): string {
  const row = (h: CommandHelp) =>
    `| ${h.usage.map((u) => `\`${cell(u)}\``).join('<br>')} | ${cell(h.about)} | ${cell(h.exitCodes)} | [${h.docs}](${h.docs.replace(/^docs\//, '')}) |`;
  const rows = (Object.keys(SUBCOMMANDS) as (keyof typeof SUBCOMMANDS)[]).flatMap((c) => {
    const h: CommandHelp = COMMANDS[c].help;
    return [row(h), ...Object.values(h.verbs ?? {}).map(row)];
  });
  return [
    '| command | what it does | exit codes (every one also: 130 interrupted, 255 crashed) | more |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The exit codes, as a sentence. */
export function exitCodesText(): string {
  return `${EXIT.valid} valid, ${EXIT.invalid} invalid, ${EXIT.unknown} unknown, ${EXIT.badArguments} bad arguments, ${EXIT.crashed} the harness crashed, 130 interrupted`;
}

/** Each duration derived from --ttl: its rule (one per field of RunTiming, so a new one cannot go unsaid). */
const TIMING_RULE_TEXT: Readonly<Record<keyof RunTiming, string>> = {
  ttlMs: '`--ttl`: the lock TTL, lease or session timeout',
  pauseMs: 'a pause fault that does not wait for its story lasts `--pause`, else 1.5 × TTL',
  storyWaitMs:
    'a fault that waits for its story (pause-holder until another client wrote, …) holds at most `--pause`, else 4 × TTL',
  acquireTimeoutMs: 'an acquire gives up after 3 × TTL + 1 s (`ctx.acquireTimeoutMs`)',
  stepTimeoutMs: 'a step that has not settled after the acquire timeout + 2 s is `info` (unknown)',
  stopGraceMs: 'at the end the harness gives its clients the acquire timeout + 5 s to stop',
  watchdogEveryMs: '`--watchdog` renews every TTL/3',
  connectTimeoutMs: 'a ZooKeeper session may take max(5 s, 3 × TTL) to connect',
  clockStrobePeriodMs: '`clock-strobe` flips the clocks every TTL/4 (at least 50 ms)',
  latencyChoicesMs: '`latency` delays each direction by 5 %, 25 % or 50 % of the TTL',
};

export function timingMarkdown(): string {
  const t = runTiming({ ttlMs: 2000 });
  const at = (v: number | readonly number[]) => (Array.isArray(v) ? v.map((x) => `${x} ms`).join(', ') : `${v} ms`);
  return [
    '| rule | at the default `--ttl=2000` |',
    '|---|---|',
    ...(Object.keys(TIMING_RULE_TEXT) as (keyof RunTiming)[]).map((k) => `| ${TIMING_RULE_TEXT[k]} | ${at(t[k])} |`),
  ].join('\n');
}

/** The faults, from the catalogue: what each does, its family, and what makes a shot of it a hit. */
export function faultsMarkdown(): string {
  const aliases = (f: string) =>
    Object.entries(FAULT_ALIASES)
      .filter(([, to]) => to === f)
      .map(([a]) => ` (also \`${a}\`)`)
      .join('');
  return [
    '| fault | family | what it does | a shot is a hit when it |',
    '|---|---|---|---|',
    ...Object.entries(FAULT_CATALOGUE).map(
      ([name, f]) =>
        `| \`${name}\`${aliases(name)} | ${f.family}${f.aim ? ', aimed at the holder' : ''}${f.movesClocks ? ', moves clocks' : ''} | ${cell(f.help)} | ${cell(f.hit)} |`,
    ),
  ].join('\n');
}

/** What a foreign lock process is told in `connect` and how long the harness waits: a run's values and lock-check's. */
export function protocolTimeoutsMarkdown(): string {
  const run = runTiming({ ttlMs: 2000 });
  const runReply = replyTimeoutMs({ acquireTimeoutMs: run.acquireTimeoutMs });
  return [
    '| in `connect`, and the harness’s wait | a run (rule, and at the default `--ttl=2000`) | `lock-check` |',
    '|---|---|---|',
    `| \`ttlMs\` | \`--ttl\`: ${run.ttlMs} | ${CHECK_TTL_MS} |`,
    `| \`acquireTimeoutMs\`: answer \`acquire\` by then | 3 × TTL + 1 s: ${run.acquireTimeoutMs} | ${CHECK_ACQUIRE_TIMEOUT_MS} |`,
    `| \`replyTimeoutMs\`: answer every other request by then | = \`acquireTimeoutMs\`: ${runReply} | ${CHECK_REPLY_MS} |`,
    `| the harness waits for \`acquire\`'s reply | \`acquireTimeoutMs\` + ${ACQUIRE_GRACE_MS}: ${run.acquireTimeoutMs + ACQUIRE_GRACE_MS} | ${CHECK_ACQUIRE_TIMEOUT_MS + ACQUIRE_GRACE_MS} |`,
    `| the harness waits for \`connect\`'s reply (the process starts first) | max(\`replyTimeoutMs\`, ${CONNECT_TIMEOUT_MIN_MS}): ${Math.max(runReply, CONNECT_TIMEOUT_MIN_MS)} | ${CHECK_REPLY_MS} |`,
    `| the harness waits for any other reply | \`replyTimeoutMs\`: ${runReply} | ${CHECK_REPLY_MS} |`,
  ].join('\n');
}

/**
 * The story each fault aimed at the holder stands for, step by step, from the catalogue: a shot is a hit only when
 * every step happened in order (or the lock visibly held at a step that may hold).
 */
export function faultStoriesMarkdown(): string {
  return Object.entries(FAULT_CATALOGUE)
    .flatMap(([name, f]) => {
      const facts = f as { story: readonly { says: string; held?: string }[] | null; storyLimits?: string };
      if (!facts.story) return [];
      const steps = facts.story.map(
        (st, i) => `${i + 1}. ${st.says}${st.held ? ` — or the lock held: ${st.held}` : ''}`,
      );
      return [
        `**\`${name}\`**`,
        '',
        ...steps,
        ...(facts.storyLimits ? ['', `*Limits:* ${facts.storyLimits}.`] : []),
        '',
      ];
    })
    .join('\n')
    .trimEnd();
}
