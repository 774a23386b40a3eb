import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every source file a production file cites (`faults/judging/story.ts`, `faults/clock.ts`) must exist, from the
 * repository's root or from the citing file's folder. Comments cite files to say where the rest of a story is; when
 * a file moved, thirteen cites kept pointing at where it had been (`checkers/fault-stories.ts` ×10 after the judges'
 * split, `harness/scenario-run.ts` ×2, `harness/cell-config.ts`), and nothing noticed. test/doc-paths.test.ts does
 * the same for the docs' pages.
 */
const ROOT = path.resolve(import.meta.dirname, '..');

/** Production files: code, scripts and workflows outside the tests and the examples. */
const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|js|mjs|cjs|py|go|java|c|css|sh|ya?ml)$|(^|\/)run$/.test(f))
  .filter((f) => !/^(test|examples|node_modules)\/|\.test\.ts$/.test(f) && fs.existsSync(path.join(ROOT, f)));

/** A cite: folder, slash, file (the slash is what tells it from a word); not the tail of a longer path or a URL. */
const CITE = /(?<![\w/.-])([a-z0-9-]+\/[a-z0-9./-]+\.(?:ts|js|md|json))(?![\w-])/g;

/** Cites that name no file of this repository on purpose, each with why. */
export const NOT_OURS: Readonly<Record<string, string>> = {
  'locks/my-lock.ts': "the file `fencepost init` writes in the user's folder (harness/init-command.ts)",
  'test-output/vitest.json': 'written by the test run .ci/run starts, and read back by it; ignored by git',
  'baseline/tonight/nightly.json': "last night's results, which the nightly workflows download when they run",
  'baseline/nightly.json': "last night's results, which the workflow `fencepost init` writes downloads when it runs",
  'doc/workloads.md': "Maelstrom's page, in its repository, not this one",
  'dist/esm/index.js': "inside the npm package redlock-universal (the code the comment's claim was read from)",
  'build/index.js': 'inside the npm packages advisory-lock and redlock-sesame (locks/<row>/npm pins them)',
  'lib/misc.js': 'inside the npm package redis-semaphore',
  'lib/lock.js': 'inside the npm package etcd3',
  'dist/index.js': 'inside the npm package simple-redis-mutex',
  'uplot/package.json': "a package's file, found with require.resolve",
  'dynalite/package.json': "a package's file, found with require.resolve (the run's DynamoDB's version)",
};

interface Cite {
  file: string;
  line: number;
  cite: string;
}

function cites(): Cite[] {
  const out: Cite[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(CITE)) out.push({ file, line: i + 1, cite: m[1] });
    });
  }
  return out;
}

/**
 * The repository's files, tracked or not yet added — never what git ignores: a file a run leaves behind
 * (test-output/vitest.json after a .ci/run) is not the repository's, and made NOT_OURS's check fail on the machine
 * that ran CI.
 */
const OURS = new Set(
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean),
);

const resolves = ({ file, cite }: Cite) =>
  OURS.has(path.posix.normalize(cite)) ||
  OURS.has(path.posix.normalize(path.posix.join(path.posix.dirname(file), cite)));

describe('source paths cited by production files', () => {
  const all = cites();

  it('every cited source file exists, from the root or from the citing file (but those NOT_OURS names)', () => {
    expect(all.length).toBeGreaterThan(300);
    const stale = all.filter((c) => !resolves(c) && !(c.cite in NOT_OURS)).map((c) => `${c.file}:${c.line}: ${c.cite}`);
    expect(stale, 'cites of files that do not exist: point each at where the file is now').toEqual([]);
  });

  it('names in NOT_OURS only cites that are still made and still resolve to nothing here', () => {
    const made = new Set(all.map((c) => c.cite));
    const unused = Object.keys(NOT_OURS).filter((c) => !made.has(c));
    const ours = Object.keys(NOT_OURS).filter((c) => all.some((a) => a.cite === c && resolves(a)));
    expect({ unused, ours }).toEqual({ unused: [], ours: [] });
  });

  it('reads a cite the way a reader would', () => {
    const found = (line: string) => [...line.matchAll(CITE)].map((m) => m[1]);
    expect(found(' * judged by faults/judging/story.ts (and docs/faults.md).')).toEqual([
      'faults/judging/story.ts',
      'docs/faults.md',
    ]);
    // A relative import, a URL and a package's inner path are not cites of this repository's files.
    expect(found("import { x } from '../history/ops.ts';")).toEqual([]);
    expect(found('https://github.com/jepsen-io/maelstrom/blob/main/doc/workloads.md')).toEqual([]);
    expect(found('(node_modules/etcd3/lib/lock.js)')).toEqual([]);
  });
});
