import fs from 'node:fs';
import path from 'node:path';
import { CLI } from '../common/cli-name.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { faultFacts } from '../faults/catalogue.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { ciHints, INIT_WORKFLOW, workflow } from './init-workflow.ts';

/**
 * `fencepost init`: a user's first five minutes — a starter plugin (`locks/my-lock.ts`, a Redis lock: the docs'
 * plugin, examples/my-lock.ts, so the starter is the example a test runs), an expectations file naming it, a
 * nightly workflow of plain `run:` steps (init-workflow.ts), and `results/` in .gitignore; then the next commands
 * to type and what they should show (the first is INVALID on purpose). It never overwrites: an existing file is an
 * error naming it (exit 254), before anything is written.
 */
const PKG = new URL('../package.json', import.meta.url);
const EXAMPLE = new URL('../examples/my-lock.ts', import.meta.url);
/**
 * The fault of the starter's lesson (its example cell, the first command it prints): the first of the catalogue that
 * does not keep the servers' leases (a Redis restarted empty), which a lock kept in one Redis, as the starter's is,
 * cannot survive.
 */
const LESSON = FAULT_NAMES.find((f) => faultFacts(f)?.keepsServerLeases === false)!;

export const INIT_LOCK = 'locks/my-lock.ts';
export const INIT_EXPECTATIONS = 'fencepost.expectations.json';
export { INIT_WORKFLOW };

/** The version of fencepost installed here: the tarball name a folder install packs into. */
function version(): string {
  return (JSON.parse(fs.readFileSync(PKG, 'utf8')) as { version: string }).version;
}

function starterLock(): string {
  const example = fs.readFileSync(EXAMPLE, 'utf8').split('\n');
  // The example's own header says how to run it from this repository; the starter says how to run it from yours.
  const body = example.slice(example.findIndex((l) => l.startsWith('import ')));
  return [
    `// Your lock, as fencepost runs it: \`${CLI} --lock=./${INIT_LOCK} --nemesis=${LESSON} --time-limit=15\`.`,
    '// A Redis lock (SET NX PX + compare-and-delete release) to start from: replace connect/acquire/release with',
    "// your own lock's calls. The contract: node_modules/fencepost/docs/your-lock.md. It imports ioredis: add it to",
    '// your own dependencies (npm install -D ioredis) rather than relying on the copy npm hoisted for fencepost.',
    ...body,
  ].join('\n');
}

function expectations(): string {
  const lock = `./${INIT_LOCK}`;
  const cells = [
    { lock, fault: 'none', expect: 'safe', why: 'with no fault, my-lock must keep the balance' },
    {
      lock,
      fault: LESSON,
      expect: 'lost',
      why: 'one Redis without persistence forgets the lock when it restarts empty: known, and measured every night',
    },
  ];
  return `${JSON.stringify({ cells }, null, 2)}\n`;
}

/** `dir` as the user sees it from where they stand: `this folder`, or a path relative to it. */
function here(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel === '' ? 'this folder' : rel;
}

/** A path's own entry (a link is not followed), or null when there is none. */
function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * What is wrong with the folders `file` would be written into below `dir`: a symbolic link (init would write through
 * it, outside the folder: an untrusted clone can point `locks` anywhere) or something that is not a folder.
 */
function folderProblem(dir: string, file: string): string[] {
  const parts = path
    .dirname(file)
    .split('/')
    .filter((p) => p !== '.');
  return parts.flatMap((_, i) => {
    const rel = parts.slice(0, i + 1).join('/');
    const st = lstatOrNull(path.join(dir, rel));
    if (!st || st.isDirectory()) return [];
    return [st.isSymbolicLink() ? `${rel} is a symbolic link` : `${rel} is not a folder`];
  });
}

/**
 * Every file or none: folders made one level at a time and files created exclusively (`wx`: never through a link that
 * appeared meanwhile, never over a file); a failure part-way removes what this call made and is a bad argument (254)
 * naming the file, not a crash that leaves half of them.
 */
function writeAllOrNone(dir: string, files: Record<string, string>): void {
  const made: string[] = [];
  let current = '';
  try {
    for (const [file, text] of Object.entries(files)) {
      current = file;
      const parts = path
        .dirname(file)
        .split('/')
        .filter((p) => p !== '.');
      for (let i = 0; i < parts.length; i++) {
        const folder = path.join(dir, ...parts.slice(0, i + 1));
        if (lstatOrNull(folder)?.isDirectory()) continue;
        fs.mkdirSync(folder);
        made.push(folder);
      }
      fs.writeFileSync(path.join(dir, file), text, { flag: 'wx' });
      made.push(path.join(dir, file));
    }
  } catch (err) {
    // Newest first: each file before the folder it is in; a folder only if this call made it (it is then empty).
    for (const p of made.reverse()) {
      try {
        if (lstatOrNull(p)?.isDirectory()) fs.rmdirSync(p);
        else fs.rmSync(p, { force: true });
      } catch {
        // left as it is: the message below says nothing was written, which stays true of our files
      }
    }
    throw new HarnessError(
      'bad-arguments',
      `init: could not write ${current} in ${here(dir)} (${(err as Error).message}); nothing written.`,
      {
        hint: 'check that the folder and the ones init makes below it can be written',
      },
    );
  }
}

/** What init writes, relative to `dir`. */
export function initFiles(): Record<string, string> {
  return {
    [INIT_LOCK]: starterLock(),
    [INIT_EXPECTATIONS]: expectations(),
    [INIT_WORKFLOW]: workflow(INIT_EXPECTATIONS),
  };
}

export function initCommand(dir: string, log: (line: string) => void = console.log): number {
  const files = initFiles();
  const there = Object.keys(files).filter((f) => lstatOrNull(path.join(dir, f)));
  if (there.length)
    throw new HarnessError(
      'bad-arguments',
      `init: ${there.join(', ')} already exist(s) in ${here(dir)}; nothing written.`,
      {
        hint: 'move them aside, or run init in another folder',
      },
    );
  const links = Object.keys(files).flatMap((f) => folderProblem(dir, f));
  if (links.length)
    throw new HarnessError('bad-arguments', `init: ${[...new Set(links)].join('; ')}; nothing written.`, {
      hint: 'init writes only into real folders below this one: remove or replace them, or run init elsewhere',
    });
  writeAllOrNone(dir, files);
  for (const file of Object.keys(files)) log(`wrote ${file}`);
  const ignored = ignoreResults(dir);
  if (ignored) log(ignored);
  for (const line of nextSteps(dir)) log(line);
  return EXIT.valid;
}

/** What to run next, and what to expect: the first run is red on purpose. */
function nextSteps(dir: string): string[] {
  const lock = `--lock=./${INIT_LOCK}`;
  return [
    '',
    'next: run your lock under a Redis restarted empty (about 20 s), and open the report it prints:',
    `  ${CLI} ${lock} --nemesis=${LESSON} --time-limit=15`,
    '  Expect INVALID (exit 1) with lost updates: one Redis without persistence forgets the lock when it restarts',
    '  empty, and another client takes it. That is the lesson, not a broken install: the report shows each lost write.',
    'then the same lock with no fault, which should be VALID (exit 0):',
    `  ${CLI} ${lock} --nemesis=none --time-limit=15`,
    `then the nightly job on your cells: ${CLI} nightly --cells=expectations --time-limit=10`,
    ...projectHints(dir),
    ...ciHints(dir, version()),
  ];
}

/**
 * What the user's own package.json lacks for the starter: ioredis (the starter imports it; it resolved only through
 * the copy npm hoisted for fencepost), and a decision on the install scripts npm 11 warns about (fencepost needs
 * only esbuild's, which tsx runs on).
 */
function projectHints(dir: string): string[] {
  let pkg: { dependencies?: object; devDependencies?: object; allowScripts?: object };
  try {
    pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return [];
  }
  const has = (name: string) =>
    Object.hasOwn(pkg.dependencies ?? {}, name) || Object.hasOwn(pkg.devDependencies ?? {}, name);
  const decided = Object.keys(pkg.allowScripts ?? {});
  const undecided = ['esbuild', 'ssh2', 'cpu-features', 'protobufjs'].filter((n) => !decided.includes(n));
  return [
    ...(has('ioredis') ? [] : ['', `${INIT_LOCK} imports ioredis: add it to your project, npm install -D ioredis`]),
    ...(undecided.length
      ? [
          '',
          "npm 11 warns about fencepost's dependencies' install scripts; it needs only esbuild's (tsx runs on it):",
          '  npm install-scripts approve esbuild && npm install-scripts deny ssh2 cpu-features protobufjs',
        ]
      : []),
  ];
}

/** Adds `results/` to the project's .gitignore (created if missing): every run writes there. Says what it did. */
export function ignoreResults(dir: string): string | null {
  const file = path.join(dir, '.gitignore');
  let text = '';
  try {
    const st = fs.lstatSync(file);
    // Not through a link or into something else: a .gitignore that is not a plain file is the user's to edit.
    if (!st.isFile()) return `.gitignore is not a plain file: add results/ to it yourself`;
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text.split(/\r?\n/).some((l) => /^\/?results\/?$/.test(l.trim()))) return null;
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  fs.writeFileSync(file, `${text}${sep}# fencepost's run folders\nresults/\n`);
  return `${text === '' ? 'wrote' : 'added results/ to'} .gitignore`;
}
