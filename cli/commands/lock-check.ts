import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import type { LockCheckConfig } from '../../harness/lock-check-command.ts';
import type { CommandModule } from '../command-module.ts';
import { dockerEngineFirst } from '../docker-engine-first.ts';

const TABLE = [...pickRows(RUN_ROWS, ['backend', 'results']), HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): LockCheckConfig {
  const { values: v, words } = parseArgv(args, TABLE, { ...optionsOnly('lock-check', context), words: 'collect' });
  return { command: 'lock-check', help: v.help, rest: words, backend: v.backend, resultsDir: path.resolve(v.results) };
}

export const lockCheck: CommandModule<LockCheckConfig> = {
  summary: "a lock of your own (a plugin module, or another language's) against the lock-client protocol's contract",
  help: {
    about:
      "Plays the lock-client protocol's contract against a lock of your own — a TypeScript or JavaScript plugin module (served as a lock process) or a lock in another language — on the lock's own servers, in a few seconds: each step PASS, FAIL or SKIP, a failure with its exact exchange; a plugin that does not load or does not declare a LockStrategy is refused naming that step. Run it before a chaos run.",
    usage: ['lock-check <plugin.ts|.mts|.js|.mjs|.cjs>', 'lock-check <manifest.json>', 'lock-check exec:<program>'],
    examples: [
      ['lock-check ./my-lock.ts', 'a plugin module: a LockStrategy as its default export (docs/your-lock.md)'],
      ['lock-check ./locks/my-lock.json', 'a manifest (needs, servers, token, command)'],
      ['lock-check exec:./my-lock.py', 'a program alone: one Redis, no token'],
    ],
    docs: 'docs/your-lock.md',
    exitCodes: '0 the lock kept its contract, 1 a check failed, 254 bad arguments or a lock that does not load',
  },
  options: TABLE,
  parse,
  async run(config, shutdown) {
    await dockerEngineFirst(config.backend);
    const { lockCheckCommand } = await import('../../harness/lock-check-command.ts');
    return lockCheckCommand(config, shutdown);
  },
};
