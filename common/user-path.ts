import path from 'node:path';

/**
 * A path the user typed, resolved from where they typed it. `npm run jepsen -- replay .` runs the script in the
 * package's root, not in the folder the user stood in; npm says where that was in `INIT_CWD` (`npx` too). Without
 * it, or for an absolute path, the path is the process's own.
 */
export function userPath(typed: string, env: NodeJS.ProcessEnv = process.env): string {
  if (path.isAbsolute(typed) || !env.INIT_CWD) return typed;
  return path.relative(process.cwd(), path.resolve(env.INIT_CWD, typed)) || '.';
}
