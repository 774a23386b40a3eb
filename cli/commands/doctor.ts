import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import { EXIT } from '../../common/exit-codes.ts';
import type { DoctorConfig } from '../../harness/doctor.ts';
import type { CommandModule } from '../command-module.ts';
import { dockerEngineFirst } from '../docker-engine-first.ts';

const TABLE = [
  ...pickRows(RUN_ROWS, ['backend', 'results']),
  { name: 'json', kind: 'bool', default: false, help: 'doctor: print JSON instead of a table' },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): DoctorConfig {
  const { values: v } = parseArgv(args, TABLE, optionsOnly('doctor', context));
  return { command: 'doctor', help: v.help, backend: v.backend, resultsDir: path.resolve(v.results), json: v.json };
}

export const doctor: CommandModule<DoctorConfig> = {
  summary: 'check the servers, boot the whole cluster once, print versions and boot times',
  help: {
    about:
      'Checks the server binaries (installing what is missing when root), boots the whole cluster once, calls every node, prints versions and boot times, and tears it down.',
    usage: ['doctor [--backend=local|docker] [--json]'],
    examples: [
      ['doctor', 'is this machine ready? (boots 13 nodes, ~3 s)'],
      ['doctor --backend=docker --json', 'the same in containers, as JSON'],
    ],
    docs: 'docs/getting-started.md',
    exitCodes: '0 every server booted and answered, 254 a server binary is missing (with how to install it)',
  },
  options: TABLE,
  parse,
  async run(config, shutdown) {
    await dockerEngineFirst(config.backend);
    const body = await import('../../harness/doctor.ts');
    const report = await body.doctor(config, shutdown);
    console.log(config.json ? JSON.stringify(report, null, 2) : body.formatDoctor(report));
    return EXIT.valid;
  },
};
