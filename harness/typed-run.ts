import { defaultValue } from './option-table.ts';
import { cryptoSeed } from './options.ts';
import type { RandomSeed } from './command-spec.ts';
import { resolvedRun, RUN_OPTIONS, runOf, type Config, type RunOptionValues } from './run-argv.ts';
import { optionValuesOf, spelledOf, type RunOverrides } from './run-overrides.ts';

/** Every run option at its default: what a run given none of them runs with. */
export function runDefaults(): RunOptionValues {
  return Object.fromEntries(RUN_OPTIONS.map((o) => [o.name, defaultValue(o)])) as RunOptionValues;
}

/**
 * A run's Config from typed options (`{ lock: 'etcd', concurrency: 1, nemesis: [] }`), its argv rendered from them
 * once, in the object's order (its test.json, its replay line): what a bench builds instead of an argv it would parse
 * back. The CLI's refusals apply as to a typed-in command line; the rest of the options are their defaults.
 */
export function typedRun(options: RunOverrides, randomSeed: RandomSeed = cryptoSeed): Readonly<Config> {
  return resolvedRun(runOf({ ...runDefaults(), ...optionValuesOf(options) }, spelledOf(options), randomSeed));
}
