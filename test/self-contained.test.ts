import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A plain clone must pass its own tests: nothing in the project may read from the folder beside it where our
 * own CI happens to keep shared design data. Data the project needs (the Knossos corpus) is copied in with its
 * source and licence. The needle is built so that this file does not match itself.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NEEDLE = ['..', 'shared'].join('/');

function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  return out
    .toString('utf8')
    .split('\0')
    .filter((f) => f !== '' && !f.endsWith('.edn') && !f.startsWith('node_modules/'));
}

describe('the repo stands alone', () => {
  it(`no file refers to ${NEEDLE}`, () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.filter((f) => {
      try {
        return readFileSync(path.join(ROOT, f), 'utf8').includes(NEEDLE);
      } catch {
        return false; // deleted in the work tree but still in the index
      }
    });
    expect(offenders).toEqual([]);
  });

  it('the Knossos corpus is in the repo with its source and licence', () => {
    const readme = readFileSync(path.join(ROOT, 'test/corpus/knossos/README.md'), 'utf8');
    expect(readme).toMatch(/jepsen-io\/knossos/);
    expect(readme).toMatch(/9b2c79e9/);
    expect(readme).toMatch(/Eclipse Public License/);
  });
});
