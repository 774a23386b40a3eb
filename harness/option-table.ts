import { HarnessError } from '../common/errors.ts';
import { CLI } from '../common/cli-name.ts';
import { walkArgv, type SpelledOption } from '../common/walk-argv.ts';

export type { SpelledOption };

/**
 * How an option's value is read: a whole number within bounds, a flag, one of fixed choices, or a string. An
 * option whose value needs more (a shard, a JSON value, a fault list) adds `parse`.
 */
export type OptionKind = 'int' | 'string' | 'bool' | 'enum';

/**
 * One row of an option table: its type, default, bounds and help line. `--help` is printed from the rows and the
 * parser reads argv against them; the values' TypeScript types are derived from the rows (`OptionValues`), so an
 * option cannot be read under a type other than the one it is parsed as.
 */
export interface OptionSpec {
  readonly name: string;
  /** What the value is, as help shows it (`--ttl=<ms>`); default: the kind's (`n`, `value`) or an enum's choices. */
  readonly value?: string;
  readonly kind: OptionKind;
  /** Default shown in --help; absent = derived or none (`defaultText` says which). */
  readonly default?: string | number | boolean;
  readonly defaultText?: string;
  readonly choices?: readonly string[];
  /** Values a shell completes for it besides its choices (`--lock`'s built-ins): a hint, never a check. */
  readonly completions?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly help: string;
  /** Reads a value the kind alone cannot check; throws `bad(…)` with what is wrong. */
  readonly parse?: (raw: string) => unknown;
}

/** The value type a row parses to (fast-check derives its parameters' types from their declarations the same way). */
type ValueOf<S extends OptionSpec> = S extends { parse: (raw: string) => infer T }
  ? T
  : S extends { kind: 'int' }
    ? number
    : S extends { kind: 'bool' }
      ? boolean
      : S extends { choices: readonly (infer C)[] }
        ? C
        : string;

/** Parsed values of a table, by option name: `undefined` where an option without a default was not given. */
export type OptionValues<T extends readonly OptionSpec[]> = {
  readonly [S in T[number] as S['name']]: S extends { default: unknown } ? ValueOf<S> : ValueOf<S> | undefined;
};

export function bad(message: string, hint?: string): HarnessError {
  return new HarnessError('bad-arguments', message, { hint: hint ?? `see \`${CLI} --help\`` });
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

export function didYouMean(word: string, choices: readonly string[]): string {
  const best = choices.map((c) => [c, editDistance(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= 2 ? ` Did you mean ${best[0]}?` : '';
}

/** What a duration option's value is counted in, by its placeholder (`--ttl=<ms>`), and each suffix in that unit. */
const UNITS: {
  readonly [value: string]: { readonly word: string; readonly per: { readonly [suffix: string]: number } };
} = {
  ms: { word: 'milliseconds', per: { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000 } },
  s: { word: 'seconds', per: { s: 1, sec: 1, m: 60, min: 60, h: 3600 } },
};

/**
 * A duration written with a unit (`--ttl=2s`): the refusal says what the option counts in and the value it meant
 * (`--ttl takes milliseconds: --ttl=2000`), since "must be a whole number" left the unit — the answer — unsaid.
 */
function inUnit(spec: OptionSpec, raw: string): HarnessError | null {
  const unit = spec.value !== undefined ? UNITS[spec.value] : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(raw.trim());
  if (!unit || !m) return null;
  const per = unit.per[m[2].toLowerCase()];
  if (per === undefined) return bad(`--${spec.name} takes ${unit.word}, as a whole number: got "${raw}".`);
  return bad(`--${spec.name} takes ${unit.word}: --${spec.name}=${Math.round(Number(m[1]) * per)}`);
}

/**
 * A whole number within its row's bounds, else the refusal a typed value gets as well as a typed-in one: a matrix
 * cell's own values (a floor on --think, a cap on --nemesis-interval) are checked against the same rows.
 */
export function withinBounds(spec: OptionSpec, n: number): number {
  if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max))
    throw bad(`--${spec.name} must be between ${spec.min ?? '-∞'} and ${spec.max ?? '∞'}, got ${n}.`);
  return n;
}

function parseValue(spec: OptionSpec, raw: string): unknown {
  switch (spec.kind) {
    case 'bool':
      if (raw === 'true' || raw === '') return true;
      if (raw === 'false') return false;
      throw bad(`--${spec.name} takes no value or true/false, got "${raw}".`);
    case 'int': {
      const unit = inUnit(spec, raw);
      if (unit) throw unit;
      if (!/^-?\d+$/.test(raw))
        throw bad(
          `--${spec.name} must be a whole number${spec.min !== undefined ? ` ≥ ${spec.min}` : ''}, got "${raw}".`,
        );
      return withinBounds(spec, Number(raw));
    }
    case 'enum':
      if (!spec.choices!.includes(raw))
        throw bad(
          `--${spec.name} must be one of ${spec.choices!.join(', ')}; got "${raw}".${didYouMean(raw, spec.choices!)}`,
        );
      return raw;
    case 'string':
      if (raw === '' && !spec.parse) throw bad(`--${spec.name} needs a value.`);
      return spec.parse ? spec.parse(raw) : raw;
  }
}

/**
 * One option given as a value rather than typed in (a scenario file's `"ttl": 2000`): read as `--name=value` would
 * be, with the same checks and refusals, and spelled so. `true` is the bare flag (an option that takes a value is
 * refused without one, as typed), `false` is as if not given: null.
 */
export function givenValue(
  spec: OptionSpec,
  given: string | number | boolean,
): { value: unknown; spelled: SpelledOption } | null {
  if (given === false) return null;
  if (given === true) {
    if (spec.kind !== 'bool') throw bad(`--${spec.name} needs a value.`);
    return { value: true, spelled: { name: spec.name, argv: [`--${spec.name}`] } };
  }
  return { value: parseValue(spec, String(given)), spelled: { name: spec.name, argv: [`--${spec.name}=${given}`] } };
}

export interface ParsedArgv<T extends readonly OptionSpec[]> {
  values: OptionValues<T>;
  /** The options the user gave, in the order given (a repeated one once, where it first appeared). */
  given: readonly T[number]['name'][];
  /**
   * Every option given, each time it was given, as spelled, in order: what a command that passes the user's options
   * on (a matrix cell, a night's settings) keeps of them, option by option, without walking the argv again.
   */
  spelled: readonly SpelledOption<T[number]['name']>[];
  /** Arguments that are not options. */
  words: string[];
}

export interface ParseRules {
  /** Whether words (non-option arguments) are collected or refused. */
  readonly words: 'collect' | 'refuse';
  /** Refused word → its error (the caller knows what words it takes). */
  readonly badWord?: (word: string) => HarnessError;
  /** An option this table lacks: another subcommand's (its refusal), or null for "unknown option". */
  readonly elsewhere?: (name: string) => HarnessError | null;
}

/** A row's value when its option is not given: its default, read as a given value would be. */
export function defaultValue(spec: OptionSpec): unknown {
  return spec.parse && typeof spec.default === 'string' ? spec.parse(spec.default) : spec.default;
}

/**
 * argv against one table: `--name=value`, `--name value`, `--flag`; a later occurrence wins. Every error is a
 * bad-arguments HarnessError (exit 254) naming the option and what it takes.
 */
export function parseArgv<const T extends readonly OptionSpec[]>(
  argv: readonly string[],
  table: T,
  rules: ParseRules,
): ParsedArgv<T> {
  const specs = new Map<string, OptionSpec>(table.map((o) => [o.name, o]));
  const raw = new Map<string, unknown>();
  const words: string[] = [];
  const spelled: SpelledOption[] = [];
  for (const item of walkArgv(argv, (name) => specs.get(name)?.kind !== 'bool')) {
    if ('word' in item) {
      if (rules.words === 'refuse') throw rules.badWord?.(item.word) ?? bad(`unexpected argument "${item.word}".`);
      words.push(item.word);
      continue;
    }
    const { name, value } = item;
    const spec = specs.get(name);
    if (!spec) {
      throw (
        rules.elsewhere?.(name) ??
        bad(
          `unknown option --${name}.${didYouMean(name, [...specs.keys()]).replace('Did you mean ', 'Did you mean --')} Valid options: ${[...specs.keys()].map((k) => `--${k}`).join(' ')}`,
        )
      );
    }
    if (value === undefined && spec.kind !== 'bool') throw bad(`--${name} needs a value.`);
    raw.set(name, parseValue(spec, value ?? ''));
    spelled.push({ name, argv: item.argv });
  }
  const values: Record<string, unknown> = {};
  for (const o of table) values[o.name] = raw.has(o.name) ? raw.get(o.name) : defaultValue(o);
  // The casts: the loop above filled each row's value by its kind, which is what OptionValues spells, and spelled
  // only the table's names.
  return {
    values: values as OptionValues<T>,
    given: [...raw.keys()],
    spelled: spelled as SpelledOption<T[number]['name']>[],
    words,
  };
}

/** Per row, its flag as typed (`--ttl=<n>`) and its help with the default: the two columns of a help listing. */
export function optionRows(table: readonly OptionSpec[]): [string, string][] {
  return table.map((o) => {
    const flag =
      o.kind === 'bool'
        ? `--${o.name}`
        : `--${o.name}=<${o.value ?? (o.kind === 'enum' ? o.choices!.join('|') : o.kind === 'int' ? 'n' : 'value')}>`;
    // A flag's default is off: "(default: false)" on every flag says nothing.
    const def = o.defaultText ?? (o.default === undefined || o.default === false ? '' : String(o.default));
    return [flag, `${o.help}${def !== '' ? ` (default: ${def})` : ''}`];
  });
}

/** The rows of `table` named, in the table's order, typed as their own rows (so OptionValues knows each one). */
export function pickRows<const T extends readonly OptionSpec[], const N extends readonly T[number]['name'][]>(
  table: T,
  names: N,
): Extract<T[number], { name: N[number] }>[] {
  return table.filter((o) => (names as readonly string[]).includes(o.name)) as Extract<
    T[number],
    { name: N[number] }
  >[];
}
