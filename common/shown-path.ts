import path from 'node:path';

/** A path as the user should see it: relative when it is inside the working directory, else absolute (never ../../). */
export function shownPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}
