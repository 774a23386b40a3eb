import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Folders of the repository that are not part of the installed package: its tests and benchmarks. */
const NOT_SHIPPED = new Set(['bench', 'test']);

describe("package.json's files", () => {
  it('ships every top-level folder that holds production code (a new room is not left out of the package)', () => {
    const files = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { files: string[] }).files;
    const folders = new Set(
      execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.js'], { encoding: 'utf8' })
        .split('\n')
        .filter((f) => f.includes('/') && !/\.test\.ts$/.test(f))
        .map((f) => f.split('/')[0])
        .filter((d) => !NOT_SHIPPED.has(d)),
    );
    const missing = [...folders].filter((d) => !files.includes(`${d}/`)).sort();
    expect(missing, 'add them to "files" in package.json').toEqual([]);
  });
});
