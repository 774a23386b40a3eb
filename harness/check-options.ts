import { HarnessError } from '../common/errors.ts';
import { HISTORY_MODELS, historyModel } from '../checkers/models/registry.ts';
import { bad, parseArgv, type OptionSpec } from './option-table.ts';

/** `check`'s own options (its usage text is check-command.ts's): a model for a bare history, a deadline, a start value. */
export const CHECK_OPTIONS = [
  {
    name: 'model',
    value: 'model',
    kind: 'string',
    help: `the model a history file is checked against: ${HISTORY_MODELS.map((m) => m.name).join('|')}`,
    parse: (raw: string): string => {
      if (!raw) throw bad('--model needs a value');
      if (!historyModel(raw))
        throw bad(
          `unknown model "${raw}"; valid models: ${HISTORY_MODELS.map((m) => `${m.name} (${m.summary})`).join(', ')}`,
        );
      return raw;
    },
  },
  {
    name: 'deadline',
    value: 'ms',
    kind: 'string',
    help: 'give up after this many ms; the verdict is then unknown (exit 2)',
    parse: (raw: string): number => {
      const ms = Number(raw);
      if (!raw || !Number.isFinite(ms) || ms <= 0)
        throw bad(`--deadline must be a positive number of milliseconds, got "${raw}"`);
      return ms;
    },
  },
  {
    name: 'initial',
    value: 'json',
    kind: 'string',
    help: 'initial register value (JSON) for register/cas-register',
    parse: (raw: string): unknown => {
      try {
        return JSON.parse(raw);
      } catch {
        throw bad(`--initial must be a JSON value (e.g. 0, null, "x"), got "${raw}"`);
      }
    },
  },
  { name: 'help', kind: 'bool', default: false, help: "print check's help" },
] as const satisfies readonly OptionSpec[];

/** `check`'s argv → its arguments, or the usage error to print (check-command.ts prints it with its usage). */
export function parseCheckArgs(
  args: readonly string[],
): { model?: string; deadlineMs?: number; initial?: unknown; targets: string[] } | string {
  try {
    const {
      values: v,
      given,
      words,
    } = parseArgv(
      args.map((a) => (a === '-h' ? '--help' : a)),
      CHECK_OPTIONS,
      { words: 'collect' },
    );
    if (v.help) return 'help requested';
    if (words.length === 0) return 'missing the run directory or history file to check';
    if (words.length > 1 && v.model === undefined)
      return `expected one run directory, got ${words.length}: ${words.join(' ')} (to check many history files, name a model: --model=<${HISTORY_MODELS.map((m) => m.name).join('|')}>)`;
    if (given.includes('initial') && v.model !== 'register' && v.model !== 'cas-register')
      return '--initial only applies to --model=register or --model=cas-register';
    return {
      ...(v.model !== undefined ? { model: v.model } : {}),
      ...(v.deadline !== undefined ? { deadlineMs: v.deadline } : {}),
      ...(given.includes('initial') ? { initial: v.initial } : {}),
      targets: words,
    };
  } catch (err) {
    if (err instanceof HarnessError) return err.message;
    throw err;
  }
}
