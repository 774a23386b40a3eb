import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { Op } from '../history/op.ts';
import type { FailureSignature } from '../checkers/failure-signature.ts';
import type { RunResults } from '../checkers/run-results.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { EXEC_PREFIX, lockRef } from '../workloads/lock-ref.ts';
import { BUNDLE_FILES, BUNDLE_FORMAT, BUNDLE_VERSION, type BundleJson } from './bundle-format.ts';
import { bundleReadme } from './bundle-readme.ts';
import { extractScenario } from './extract-scenario.ts';
import { FENCEPOST_VERSION } from './fencepost-version.ts';

/** What `repro` writes: the folder and the .tgz beside it. */
export interface WrittenBundle {
  dir: string;
  tgz: string;
  bytes: number;
  steps: string[];
  description: string;
}

/**
 * Writes the bundle of a failing run into `<out>/<name>/` and `<out>/<name>.tgz`. The run's own folder is read only
 * through what it is given (its history, results and test record); nothing of its logs, node data or secrets file
 * is copied. Returns what it wrote, or why it cannot (a failure with no two clients to script).
 */
export async function writeBundle(
  run: { dir: string; ops: readonly Op[]; results: RunResults; test: StoredTestJson },
  signature: FailureSignature,
  out: string,
  name: string,
): Promise<WrittenBundle | string> {
  const dir = path.join(out, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const lock = copyLock(run.test.lock, dir);
  const ex = extractScenario(run.ops, run.results, run.test.config, signature, lock.ref);
  if (typeof ex === 'string') {
    fs.rmSync(dir, { recursive: true, force: true });
    return ex;
  }
  const json: BundleJson = {
    fencepost: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    createdAt: new Date().toISOString(),
    createdBy: FENCEPOST_VERSION,
    signature,
    description: ex.description,
    lock: { name: run.test.lock, kind: lock.kind, ...(lock.file ? { file: lock.file } : {}) },
    run: {
      folder: path.basename(run.dir),
      argv: [...run.test.argv],
      seed: run.test.seed,
      startedAt: run.test.startedAt,
      options: withoutPaths(run.test.config),
      faults: [...run.test.faults],
      lostUpdates: run.results.lostUpdates,
      overlaps: run.results.overlaps,
    },
    versions: { ...run.test.versions },
    machine: {
      cores: os.availableParallelism(),
      platform: `${os.type()} ${os.release()}`,
      node: process.version,
      backend: run.test.config.backend,
    },
  };
  const write = (f: string, text: string) => fs.writeFileSync(path.join(dir, f), text, { mode: 0o644 });
  write(BUNDLE_FILES.bundle, `${JSON.stringify(json, null, 2)}\n`);
  write(BUNDLE_FILES.scenario, `${JSON.stringify(ex.scenario, null, 2)}\n`);
  write(BUNDLE_FILES.window, ex.window.map((o) => JSON.stringify(o)).join('\n') + (ex.window.length ? '\n' : ''));
  const steps = ex.scenario.steps as string[];
  write(BUNDLE_FILES.readme, bundleReadme(json, steps, ex.story, ex.window.length));
  const tgz = `${dir}.tgz`;
  await execa('tar', ['-czf', tgz, '-C', out, name]);
  return { dir, tgz, bytes: fs.statSync(tgz).size, steps, description: ex.description };
}

/** The run's options without the folders of the machine that ran it. */
function withoutPaths(config: StoredTestJson['config']): Record<string, unknown> {
  const { resultsDir: _r, argv: _a, ...rest } = config;
  return rest;
}

/**
 * The lock into the bundle when it is not built in: a plugin module as `lock/<file>`, a manifest as
 * `lock/<file>.json` with the files its command names beside it (its `cwd` is then the bundle's lock/ folder), an
 * `exec:` program as `lock/<program>`. `ref` is how the bundle's scenario names it, relative to the scenario file.
 */
function copyLock(lock: string, dir: string): { kind: BundleJson['lock']['kind']; ref: string; file?: string } {
  const ref = lockRef(lock);
  if (ref.kind === 'builtin') return { kind: 'builtin', ref: lock };
  const lockDir = path.join(dir, BUNDLE_FILES.lock);
  fs.mkdirSync(lockDir, { recursive: true });
  if (ref.kind === 'exec') {
    const program = path.resolve(ref.program);
    fs.copyFileSync(program, path.join(lockDir, path.basename(program)));
    const file = `${BUNDLE_FILES.lock}/${path.basename(program)}`;
    return { kind: 'exec', ref: `${EXEC_PREFIX}${file}`, file };
  }
  const src = path.resolve(lock);
  const file = `${BUNDLE_FILES.lock}/${path.basename(src)}`;
  if (ref.kind !== 'manifest') {
    fs.copyFileSync(src, path.join(dir, file));
    return { kind: 'plugin', ref: file, file };
  }
  const manifest = JSON.parse(fs.readFileSync(src, 'utf8')) as { cwd?: string; command?: string[] };
  const cwd = path.resolve(path.dirname(src), manifest.cwd ?? '.');
  for (const arg of manifest.command ?? []) {
    const f = path.resolve(cwd, arg);
    if (!path.isAbsolute(arg) && f.startsWith(cwd + path.sep) && fs.statSync(f, { throwIfNoEntry: false })?.isFile()) {
      fs.mkdirSync(path.dirname(path.join(lockDir, arg)), { recursive: true });
      fs.copyFileSync(f, path.join(lockDir, arg));
    }
  }
  const { cwd: _cwd, ...rest } = manifest;
  fs.writeFileSync(path.join(dir, file), `${JSON.stringify(rest, null, 2)}\n`);
  return { kind: 'manifest', ref: file, file };
}
