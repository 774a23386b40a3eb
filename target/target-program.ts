import path from 'node:path';

/**
 * A target file's program as it is executed, checked and printed: one that names a path (`./faults/sig.sh`,
 * `faults/sig.sh`, `../bin/x`) is the target file's folder's, wherever fencepost runs; a bare name is looked up on
 * PATH; an absolute one is itself. Before, only `./` and `../` were resolved, so preflight looked for `faults/sig.sh`
 * in the current folder while the command ran from the target file's (audit R17).
 */
export function targetProgram(cwd: string, program: string): string {
  return program.includes('/') ? path.resolve(cwd, program) : program;
}
