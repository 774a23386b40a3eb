import { describe, expect, it } from 'vitest';
import { commandHelp, globalHelp, helpFor } from './command-help.ts';
import { helpWidth, twoColumns, wrapText } from '../harness/help-layout.ts';
import { commandOptions, OPTIONS, parseCommandLine, SUBCOMMANDS } from './command-line.ts';
import { runCli } from '../test/support/cli-run.ts';

const COMMANDS = Object.keys(SUBCOMMANDS) as (keyof typeof SUBCOMMANDS)[];
const longest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

describe('help layout', () => {
  it('wraps words to the width, the first line and the rest at their own indents', () => {
    expect(wrapText('one two three four five', 12, 4, 0)).toEqual(['one two', '    three', '    four', '    five']);
    // A list written without spaces is cut after its separators rather than overflowing.
    expect(wrapText('a,bb,ccc,dddd,eeeee', 10, 0).every((l) => l.length <= 10)).toBe(true);
  });

  it('puts a name too long for its column on a line of its own', () => {
    expect(twoColumns([['--short', 'text']], 40, 12)).toEqual(['  --short     text']);
    expect(twoColumns([['--a-very-long-option=<x>', 'text']], 40, 12)).toEqual([
      '  --a-very-long-option=<x>',
      '              text',
    ]);
  });

  it("takes the terminal's width, within 60–120, and 100 when output is not a terminal", () => {
    expect(helpWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 300 })).toBe(120);
    expect(helpWidth({ isTTY: false, columns: 80 })).toBe(100);
  });
});

describe('--help', () => {
  it.each([80, 100])('keeps every line of every help within %i columns (they ran to 345)', (width) => {
    expect(longest(globalHelp(width))).toBeLessThanOrEqual(width);
    for (const c of COMMANDS) expect(longest(commandHelp(c, width)), c).toBeLessThanOrEqual(width);
  });

  it('lists each option where it is accepted: the run options globally, each subcommand its own', () => {
    const flat = (t: string) => t.replace(/\s+/g, ' ');
    const global = flat(globalHelp());
    for (const o of commandOptions('run')) expect(global, o.name).toContain(`--${o.name}`);
    for (const c of COMMANDS) {
      const text = flat(commandHelp(c));
      const own = commandOptions(c);
      for (const o of own) expect(text, `${c} --${o.name}`).toContain(`--${o.name}`);
    }
    // Every row of the table is somewhere.
    const everywhere = [global, ...COMMANDS.map((c) => flat(commandHelp(c)))].join(' ');
    for (const o of OPTIONS) expect(everywhere, o.name).toContain(`--${o.name}`);
  });

  it('gives each subcommand its usage and examples, and says "(default: default)" nowhere', () => {
    for (const c of COMMANDS) {
      const text = commandHelp(c);
      expect(text, c).toMatch(new RegExp(`^usage:\\n  .* ${c}`, 'm'));
      expect(text, c).toMatch(/^examples:\n {2}\S/m);
      expect(text, c).toMatch(/^docs: docs\//m);
    }
    expect(globalHelp()).toMatch(/^examples:\n/m);
    expect(globalHelp()).not.toContain('(default: default)');
    expect(globalHelp().replace(/\s+/g, ' ')).toContain('--nemesis=<fault,…|none> the faults to inject');
  });

  it('is asked for the same way for every subcommand: a help flag anywhere in its arguments', () => {
    for (const c of COMMANDS) expect(parseCommandLine([c, '--help']).help, c).toBe(true);
    const help = (argv: string[]) => parseCommandLine(argv).help;
    expect(help(['check', 'results/x', '-h'])).toBe(true);
    expect(help(['compare', '--help'])).toBe(true);
    expect(help(['compare', 'a', 'b'])).toBe(false);
  });

  // check --help printed its usage on stderr and exited 254; compare --help said "needs at least two run dirs".
  it.each([
    ['check', /^npm run jepsen -- check — /],
    ['compare', /^npm run jepsen -- compare — /],
    ['serve', /^npm run jepsen -- serve — /],
  ])('%s --help prints its own help on stdout and exits 0', async (command, head) => {
    const r = await runCli([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(head);
    expect(r.stderr).toBe('');
  });

  // Every subcommand ended with the run's "0 valid, 1 invalid (anomalies found), 2 unknown, …", serve and init too.
  it("ends each subcommand's help with its own exit codes, not the run's", () => {
    const ending = (c: (typeof COMMANDS)[number]) =>
      commandHelp(c, 120)
        .replace(/\s+/g, ' ')
        .match(/exit codes: (.*?) docs: /)![1];
    expect(ending('serve')).toBe(
      '254 bad arguments or a port that is taken (otherwise it serves until Ctrl-C: 130), 130 interrupted, 255 the harness crashed',
    );
    expect(ending('nightly')).toMatch(
      /^0 every measured cell matched its expectation, 1 a cell contradicts its expectation, /,
    );
    expect(ending('check')).toMatch(/^0 valid, 1 invalid \(anomalies found\), 2 unknown, 254 /);
    for (const c of COMMANDS.filter((c) => c !== 'check'))
      expect(ending(c), c).not.toContain('1 invalid (anomalies found)');
    expect(globalHelp(120).replace(/\s+/g, ' ')).toContain(
      'exit codes: 0 valid, 1 invalid (anomalies found), 2 unknown, 254 bad arguments, 130 interrupted, 255 the harness crashed',
    );
  });

  // `nightly merge --help` printed nightly's 103 lines, 34 options from --nemesis-interval on.
  it('gives nightly merge a help of its own, with only the options merge reads', async () => {
    const text = helpFor('nightly', ['merge']);
    expect(text).toMatch(/^npm run jepsen -- nightly merge — Joins the results folders of the shards/);
    const options = [...text.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(options).toEqual(['--results', '--baseline', '--partial', '--help']);
    expect(helpFor('nightly', [])).toContain('--nemesis-interval');
    const r = await runCli(['nightly', 'merge', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${helpFor('nightly', ['merge'])}\n`);
  });
});
