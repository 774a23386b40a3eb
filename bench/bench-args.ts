import { HarnessError } from '../common/errors.ts';
import { helpWidth, twoColumns } from '../harness/help-layout.ts';
import { bad, optionRows, parseArgv, type OptionSpec, type OptionValues } from '../harness/option-table.ts';

/**
 * A benchmark's arguments, read by the CLI's own argv walker against the benchmark's option table: one grammar
 * (`--name=value`, `--name value`, `--flag`), typed values, and the same refusal for every benchmark — its message,
 * then its usage listed from the table, exit 254. A benchmark takes no words.
 */
export function benchArgs<const T extends readonly OptionSpec[]>(
  bench: string,
  args: readonly string[],
  table: T,
): OptionValues<T> {
  try {
    return parseArgv(args, table, { words: 'refuse' }).values;
  } catch (e) {
    if (!(e instanceof HarnessError)) throw e;
    refuse(bench, e.message, table);
  }
}

/** Prints what is wrong and the benchmark's usage from its table; exit 254 (bad arguments). */
export function refuse(bench: string, message: string, table: readonly OptionSpec[]): never {
  const options = twoColumns(optionRows(table), helpWidth(process.stderr)).join('\n');
  console.error(`${bench}: ${message}\nusage: npm run bench -- ${bench} [options]\n${options}`);
  process.exit(254);
}

/** A comma-separated list of whole numbers, each within [min, max] (`--sizes=1000,10000`). */
export function wholeNumbers(name: string, min: number, max: number): (raw: string) => number[] {
  return (raw) => {
    const xs = raw.split(',').map(Number);
    if (raw === '' || !xs.every((x) => Number.isInteger(x) && x >= min && x <= max))
      throw bad(`--${name}=${raw}: each must be a whole number from ${min} to ${max}.`);
    return xs;
  };
}

/** A comma-separated list of names, each one of `choices` (`--locks=redis,etcd`). */
export function namesOf(name: string, choices: readonly string[]): (raw: string) => string[] {
  return (raw) => {
    const xs = raw.split(',');
    const wrong = xs.find((x) => !choices.includes(x));
    if (wrong !== undefined) throw bad(`--${name}: "${wrong}" is not one of ${choices.join(',')}.`);
    return xs;
  };
}

/** A comma-separated list of anything non-empty (`--cells=redis,etcd`, `--from=dir1,dir2`). */
export function commaList(name: string): (raw: string) => string[] {
  return (raw) => {
    const xs = raw.split(',').filter((x) => x !== '');
    if (xs.length === 0) throw bad(`--${name} needs at least one value.`);
    return xs;
  };
}
