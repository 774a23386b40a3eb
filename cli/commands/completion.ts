import { HarnessError } from '../../common/errors.ts';
import { CLI } from '../../common/cli-name.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, type OptionSpec } from '../../harness/option-table.ts';
import type { CommandModule } from '../command-module.ts';

/** `fencepost completion bash|zsh`: a completion script on stdout (cli/completion-script.ts writes it). */
export interface CompletionConfig {
  readonly command: 'completion';
  readonly help: boolean;
  readonly shell: 'bash' | 'zsh' | null;
}

const TABLE = [HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): CompletionConfig {
  const { values: v, words } = parseArgv(args, TABLE, { ...optionsOnly('completion', context), words: 'collect' });
  if (v.help) return { command: 'completion', help: true, shell: null };
  const [shell, ...more] = words;
  if ((shell !== 'bash' && shell !== 'zsh') || more.length)
    throw new HarnessError(
      'bad-arguments',
      `completion takes one shell, bash or zsh; got ${words.length ? words.map((w) => `"${w}"`).join(' ') : 'none'}.`,
      { hint: `${CLI} completion bash, or ${CLI} completion zsh` },
    );
  return { command: 'completion', help: false, shell };
}

export const completion: CommandModule<CompletionConfig> = {
  summary: 'a bash or zsh completion script for fencepost, on stdout',
  help: {
    about:
      "Prints a completion script for bash or zsh, generated from fencepost's command and option tables: subcommands, each one's options, and the values of options that have fixed ones. It completes the `fencepost` command (installed, or node_modules/.bin on your PATH).",
    usage: ['completion bash|zsh'],
    examples: [
      ['completion bash > ~/.local/share/bash-completion/completions/fencepost', 'bash, in every new shell'],
      ['completion zsh > "${fpath[1]}/_fencepost"', 'zsh, in every new shell'],
    ],
    docs: 'docs/cli.md',
    exitCodes: '0 the script was printed, 254 no shell or one it does not know',
  },
  options: TABLE,
  parse,
  async run(config) {
    const { completionScript } = await import('../completion-script.ts');
    process.stdout.write(completionScript(config.shell!));
    return EXIT.valid;
  },
};
