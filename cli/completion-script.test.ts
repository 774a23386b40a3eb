import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { OptionSpec } from '../harness/option-table.ts';
import { RUN_ROWS } from '../harness/options.ts';
import { COMMANDS } from './command-table.ts';
import { completionModel, completionScript } from './completion-script.ts';

/** What bash completes for a command line typed up to its end, with the script loaded as a user loads it. */
function bashCompletes(line: string, script = completionScript('bash')): string[] {
  // Readline's words, as bash splits them with '=' a word break: `--lock=re` is `--lock`, `=`, `re`.
  const words = line.replace(/=/g, ' = ').split(/\s+/);
  if (/=$/.test(line)) words.push('');
  const driver = `${script}
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
_fencepost; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--noprofile', '--norc', '-c', driver], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

describe('fencepost completion bash|zsh: generated from the command and option tables', () => {
  it("completes subcommands, a command's options, and the values of an option that has fixed ones", () => {
    expect(bashCompletes('fencepost ni')).toEqual(['nightly']);
    expect(bashCompletes('fencepost --lo')).toEqual(['--lock=']);
    expect(bashCompletes('fencepost --lock=zoo')).toEqual(['zookeeper']);
    expect(bashCompletes('fencepost --nemesis=pause-')).toEqual(['pause-holder', 'pause-client', 'pause-node']);
    expect(bashCompletes('fencepost nightly --cells=')).toEqual(['all', 'expectations']);
    expect(bashCompletes('fencepost serve --')).toEqual(['--results=', '--port=', '--help']);
    // A verb has its own options: merge reads four of its own (--partial: merge what shards there are).
    expect(bashCompletes('fencepost nightly merge --')).toEqual(['--results=', '--baseline=', '--partial', '--help']);
    // An option of another command is not offered: --port is serve's.
    expect(bashCompletes('fencepost --po')).toEqual([]);
  });

  it('a new option in a table is completed without touching the script (there is no list to forget)', () => {
    const serve = COMMANDS.serve as unknown as { options: readonly OptionSpec[] };
    const before = serve.options;
    serve.options = [...before, { name: 'open-browser', kind: 'bool', help: 'a new option' }];
    try {
      expect(bashCompletes('fencepost serve --op')).toEqual(['--open-browser']);
      expect(completionScript('zsh')).toMatch(/'serve'\) flags=\([^)]*--open-browser/);
    } finally {
      serve.options = before;
    }
    expect(bashCompletes('fencepost serve --op')).toEqual([]);
  });

  it('every command and every run option is in the model, once', () => {
    const { subcommands, commands } = completionModel();
    expect(subcommands).toEqual(Object.keys(COMMANDS).filter((c) => c !== 'run'));
    expect(subcommands).toContain('completion');
    const run = commands.find((c) => c.key === 'run')!;
    for (const o of RUN_ROWS) expect(run.options).toContain(o.kind === 'bool' ? `--${o.name}` : `--${o.name}=`);
  });

  it('both scripts are valid for their shell', () => {
    expect(spawnSync('bash', ['-n'], { input: completionScript('bash') }).status).toBe(0);
    const zsh = spawnSync('zsh', ['-n'], { input: completionScript('zsh') });
    // zsh is not on every machine this runs on; where it is, the script must parse.
    if (!zsh.error) expect(zsh.status, String(zsh.stderr)).toBe(0);
  });
});
