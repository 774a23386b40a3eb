import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { Op } from '../history/op.ts';
import type { FailureSignature } from '../checkers/failure-signature.ts';
import type { RunResults } from '../checkers/run-results.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { BUNDLE_FILES, BUNDLE_FORMAT, BUNDLE_VERSION, type BundleJson } from './bundle-format.ts';
import { BUNDLE_DIR_MODE, copyLock, portableArgv, portableOptions } from './bundle-lock.ts';
import { secretFindings } from './bundle-secrets.ts';
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
  /** Files the lock's manifest names that were left out (data, config, credentials). */
  notCopied: string[];
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
  fs.mkdirSync(dir, { recursive: true, mode: BUNDLE_DIR_MODE });
  fs.chmodSync(dir, BUNDLE_DIR_MODE);
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
    // Named as the bundle holds it: no path of the machine that ran it (audit R11).
    lock: { name: lock.ref, kind: lock.kind, ...(lock.file ? { file: lock.file } : {}) },
    run: {
      folder: path.basename(run.dir),
      argv: portableArgv(run.test.argv, lock.ref),
      seed: run.test.seed,
      startedAt: run.test.startedAt,
      options: portableOptions(run.test.config as unknown as Record<string, unknown>, lock.ref),
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
  const write = (f: string, text: string) => fs.writeFileSync(path.join(dir, f), text, { mode: RUN_FILE_MODE });
  write(BUNDLE_FILES.bundle, `${JSON.stringify(json, null, 2)}\n`);
  write(BUNDLE_FILES.scenario, `${JSON.stringify(ex.scenario, null, 2)}\n`);
  write(BUNDLE_FILES.window, ex.window.map((o) => JSON.stringify(o)).join('\n') + (ex.window.length ? '\n' : ''));
  const steps = ex.scenario.steps as string[];
  write(BUNDLE_FILES.readme, bundleReadme(json, steps, ex.story, ex.window.length));
  const found = secretFindings(dir, run.dir);
  if (found.length) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `the bundle would carry what must not travel: ${found.join('; ')}`;
  }
  const tgz = `${dir}.tgz`;
  fs.rmSync(tgz, { force: true });
  // Created private, then filled: the .tgz holds what the folder holds.
  fs.writeFileSync(tgz, '', { mode: RUN_FILE_MODE });
  await execa('tar', ['-czf', tgz, '-C', out, name]);
  const bytes = fs.statSync(tgz).size;
  return { dir, tgz, bytes, steps, description: ex.description, notCopied: lock.notCopied };
}
