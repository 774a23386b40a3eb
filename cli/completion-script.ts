import type { OptionSpec } from '../harness/option-table.ts';
import { COMMANDS, type CommandName } from './command-table.ts';

/**
 * `fencepost completion bash|zsh`: a shell completion script generated from the command table and each command's
 * option table — never a hand-written list, so an option added to a table is completed the day it is added. It
 * completes the subcommands, each command's options (`--flag`, `--option=` without a space after it), the values of
 * an option that has fixed ones (its `choices`, or its `completions`), and a verb's own options (`nightly merge`);
 * any other word falls back to the shell's file names (run folders, plugins, bundles).
 */
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command (or a verb: `nightly merge`) as completion sees it. */
interface Completed {
  readonly key: string;
  readonly options: readonly string[];
  readonly values: readonly (readonly [option: string, values: readonly string[]])[];
}

function optionWord(o: OptionSpec): string {
  return o.kind === 'bool' ? `--${o.name}` : `--${o.name}=`;
}

function completed(key: string, options: readonly OptionSpec[]): Completed {
  return {
    key,
    options: options.map(optionWord),
    values: options.flatMap((o) => {
      const values = o.completions ?? o.choices;
      return values?.length ? [[`--${o.name}`, values] as const] : [];
    }),
  };
}

/** Every command and verb, with what completes after it; `run` is the command of a line that names none. */
export function completionModel(): { subcommands: string[]; commands: Completed[] } {
  const names = Object.keys(COMMANDS) as CommandName[];
  const commands = names.flatMap((name) => {
    const m = COMMANDS[name];
    const verbs = Object.entries(m.help.verbs ?? {}).map(([verb, help]) =>
      completed(
        `${name} ${verb}`,
        help.options.map((o) => m.options.find((s) => s.name === o)!),
      ),
    );
    return [completed(name, m.options), ...verbs];
  });
  return { subcommands: names.filter((n) => n !== 'run'), commands };
}

/** A word list for a shell's single quotes: the tables' names and values have no quote in them. */
const quoted = (words: readonly string[]) => `'${words.join(' ')}'`;

function bash(program: string): string {
  const { subcommands, commands } = completionModel();
  const fn = `_${program.replace(/\W/g, '_')}`;
  const verbs = commands.filter((c) => c.key.includes(' '));
  const optionCases = commands.map(
    (c) =>
      `    ${c.key === 'run' ? "''" : `'${c.key}'`}) words=${quoted(c.key === 'run' ? [...subcommands, ...c.options] : c.options)} ;;`,
  );
  const valueCases = commands.flatMap((c) =>
    c.values.map(
      ([o, v]) => `    '${c.key === 'run' ? '' : c.key}|${o}') words=${quoted(v.map((x) => `${o}=${x}`))} ;;`,
    ),
  );
  return `# ${program} completion for bash, generated from its command and option tables (${program} completion bash).
# Load it now: eval "$(${program} completion bash)"; or for every shell: ${program} completion bash > ~/.local/share/bash-completion/completions/${program}
${fn}() {
  local line=\${COMP_LINE:0:COMP_POINT} cmd='' w words=''
  local cur=\${line##*[[:space:]]}
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case $w in
      -*|=) ;;
      *) if [ -z "$cmd" ]; then case " ${subcommands.join(' ')} " in *" $w "*) cmd=$w ;; esac
         elif [ "$cmd $w" = '${verbs.map((v) => v.key).join('\' ] || [ "$cmd $w" = \'')}' ]; then cmd="$cmd $w"; fi ;;
    esac
  done
  if [[ $cur == --*=* ]]; then
    case "$cmd|\${cur%%=*}" in
${valueCases.join('\n')}
    esac
  else
    case "$cmd" in
${optionCases.join('\n')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  # Readline breaks words at '=': it completes what follows it.
  if [[ $cur == *=* && $COMP_WORDBREAKS == *=* ]]; then COMPREPLY=("\${COMPREPLY[@]#"\${cur%%=*}="}"); fi
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *= ]]; then compopt -o nospace 2>/dev/null; fi
}
complete -o default -F ${fn} ${program}
`;
}

function zsh(program: string): string {
  const { subcommands, commands } = completionModel();
  const fn = `_${program.replace(/\W/g, '_')}`;
  const verbs = commands.filter((c) => c.key.includes(' '));
  const optionCases = commands.map((c) => {
    const flags = c.options.filter((o) => !o.endsWith('='));
    const valued = c.options.filter((o) => o.endsWith('='));
    const subs = c.key === 'run' ? `; subs=(${subcommands.join(' ')})` : '';
    return `    ${c.key === 'run' ? "''" : `'${c.key}'`}) flags=(${flags.join(' ')}); valued=(${valued.join(' ')})${subs} ;;`;
  });
  const valueCases = commands.flatMap((c) =>
    c.values.map(([o, v]) => `    '${c.key === 'run' ? '' : c.key}|${o}') values=(${v.join(' ')}) ;;`),
  );
  return `#compdef ${program}
# ${program} completion for zsh, generated from its command and option tables (${program} completion zsh).
# Load it now: source <(${program} completion zsh); or for every shell: ${program} completion zsh > "\${fpath[1]}/_${program}"
${fn}() {
  local cmd='' w cur=$words[CURRENT]
  local -a flags valued subs values
  for w in \${words[2,CURRENT-1]}; do
    case $w in
      -*) ;;
      *) if [[ -z $cmd ]]; then [[ " ${subcommands.join(' ')} " == *" $w "* ]] && cmd=$w
         elif [[ "$cmd $w" == (${verbs.map((v) => v.key.replace(' ', '\\ ')).join('|')}) ]]; then cmd="$cmd $w"; fi ;;
    esac
  done
  if [[ $cur == --*=* ]]; then
    case "$cmd|\${cur%%=*}" in
${valueCases.join('\n')}
    esac
    compset -P '*='
    compadd -a values
    return
  fi
  case "$cmd" in
${optionCases.join('\n')}
  esac
  if [[ $cur == -* ]]; then
    compadd -a flags
    compadd -S '' -a valued
  else
    compadd -a subs
    _files
  fi
}
# Loaded from $fpath it is the completion function itself; sourced, it registers one.
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then ${fn} "$@"; else compdef ${fn} ${program}; fi
`;
}

export function completionScript(shell: Shell, program = 'fencepost'): string {
  return shell === 'bash' ? bash(program) : zsh(program);
}
