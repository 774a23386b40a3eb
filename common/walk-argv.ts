/**
 * Walking a command line's argv, once, in one place: the CLI's option tables read it through this (harness/
 * option-table.ts), and so does a stored run's replay line (store/rerun-line.ts), which has no table at hand.
 */

/** One option as the command line spelled it: its name and the argv it took (`--ttl=800`, or `--ttl` `800`). */
export interface SpelledOption<N extends string = string> {
  readonly name: N;
  readonly argv: readonly string[];
}

/** One argument of an argv: a word, or an option with its value (undefined: none given) and the argv it took. */
export type ArgvItem = { readonly word: string } | (SpelledOption & { readonly value: string | undefined });

/**
 * The one walk of an argv: `--name=value`, `--name value` (when `takesValue(name)` and the next argument is not an
 * option), `--flag`; anything else is a word. It refuses nothing: parseArgv judges the items against its table, and
 * a stored argv (an older run's replay line) is read with it as it is.
 */
export function walkArgv(argv: readonly string[], takesValue: (name: string) => boolean): ArgvItem[] {
  const items: ArgvItem[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      items.push({ word: arg });
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (eq !== -1) items.push({ name, value: arg.slice(eq + 1), argv: [arg] });
    else if (takesValue(name) && i + 1 < argv.length && !argv[i + 1].startsWith('--'))
      items.push({ name, value: argv[i + 1], argv: [arg, argv[++i]] });
    else items.push({ name, value: undefined, argv: [arg] });
  }
  return items;
}
