import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RemoteNode, type NodeActions } from '../../target/remote-node.ts';
import type { ExecAdapterSpec } from '../../target/target-spec.ts';

/**
 * A target whose "server" is a file flag, for tests of what fencepost does to someone's server without one: the
 * node `r0` is running while `<dir>/r0.state` says `running` and stopped while it says `stopped`. Its exec adapter's
 * scripts are the audit's `sig.sh` in miniature — `pause.sh <node> <s before> <s after> <exit>` writes `stopped`
 * between two waits, then exits with the code given; `resume.sh <node> [exit]` writes `running` unless told to fail.
 * Each script appends what it did to `<dir>/r0.marks` (`started`, `acted`, `healed`), the order the test reads.
 * `pause-child.sh` takes the same arguments but acts from a child it starts (its output elsewhere) and waits for, as
 * a wrapper around `ssh` may: a timeout that kills only the shell leaves the child to act.
 */
export interface FlagTarget {
  readonly dir: string;
  state(): string;
  marks(): string[];
  /**
   * An exec adapter over the scripts: `pause` as `[s before, s after, exit]`, `resume`'s exit code, the timeout;
   * `pauseFromChild` uses `pause-child.sh`.
   */
  adapter(opts: {
    pause: [number, number, number];
    resumeExit?: number;
    timeoutMs: number;
    pauseFromChild?: boolean;
  }): ExecAdapterSpec;
  remove(): void;
}

const PAUSE = `#!/bin/sh
echo started >> "$1.marks"
sleep "$2"
echo stopped > "$1.state"
echo acted >> "$1.marks"
sleep "$3"
exit "$4"
`;
const PAUSE_CHILD = `#!/bin/sh
echo started >> "$1.marks"
( sleep "$2"; echo stopped > "$1.state"; echo acted >> "$1.marks"; sleep "$3" ) >/dev/null 2>&1 &
wait
exit "$4"
`;
const RESUME = `#!/bin/sh
[ "\${2:-0}" = 0 ] || exit "$2"
echo running > "$1.state"
echo healed >> "$1.marks"
`;

export function flagTarget(): FlagTarget {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-flag-target-'));
  fs.writeFileSync(path.join(dir, 'pause.sh'), PAUSE, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'pause-child.sh'), PAUSE_CHILD, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'resume.sh'), RESUME, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'r0.state'), 'running\n');
  const read = (f: string) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : '');
  return {
    dir,
    state: () => read('r0.state').trim(),
    marks: () => read('r0.marks').split('\n').filter(Boolean),
    adapter: ({ pause, resumeExit = 0, timeoutMs, pauseFromChild = false }) => ({
      type: 'exec',
      name: 'flag',
      commands: {
        pause: [pauseFromChild ? './pause-child.sh' : './pause.sh', '{node}', ...pause.map(String)],
        resume: ['./resume.sh', '{node}', String(resumeExit)],
      },
      cwd: dir,
      timeoutMs,
    }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The node of a flag target: it answers while its flag says `running`. */
export class FlagNode extends RemoteNode {
  constructor(
    private readonly dir: string,
    actions: NodeActions,
  ) {
    super('redis', { name: 'r0', host: '127.0.0.1', port: 0, node: 'r0' }, actions, 'fp-test/');
  }

  protected async ask(): Promise<unknown> {
    const state = fs.readFileSync(path.join(this.dir, 'r0.state'), 'utf8').trim();
    if (state !== 'running') throw new Error(`r0 is ${state}`);
    return state;
  }

  async version(): Promise<string> {
    return 'flag';
  }
}
