import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { HarnessError } from '../common/errors.ts';
import { shownPath } from '../common/shown-path.ts';
import { lockRef } from '../workloads/lock-ref.ts';
import { expectationsPath, loadExpectations } from './expectations.ts';
import { knownBugsDir, readKnownBugs } from './known-bugs.ts';
import type { NightlyConfig } from './nightly-config.ts';
import { readNightlyFiles } from './nightly-result.ts';
import { removeUnpacked } from '../repro/replay-input.ts';

/** Where a pod unpacks the night's files (a folder of its own user's, so the known bugs' ownership check holds). */
export const INPUTS_DIR = '/tmp/fencepost-inputs';
/** Where the ConfigMap holding them is mounted. */
export const INPUTS_MOUNT = '/inputs';
/** The ConfigMap's one key: the files as a gzipped tar. */
export const INPUTS_KEY = 'inputs.tgz';
/** What a ConfigMap holds (Kubernetes refuses an object over 1 MiB); the tar, base64, stays under it. */
export const MAX_INPUTS_BYTES = 700 * 1024;

/**
 * The files of this machine an emitted night needs in its pods, packed: the expectations file and the known bugs
 * for every shard, the baseline's nightly*.json for the merge (the comparison is of the whole night). Each is read
 * and checked here first, as the night would (a broken one is a 254 now, not in every pod); the pods get the flags
 * pointing at their unpacked copies. Before this, `--emit` dropped all three without a word (audit R10).
 */
export interface NightInputs {
  /** The tar, base64 (a ConfigMap's binaryData), or null when there is nothing to carry. */
  readonly tgz: string | null;
  readonly shardArgs: readonly string[];
  readonly mergeArgs: readonly string[];
  /** What was packed, as the user named it: the emitted YAML's comment says so. */
  readonly carried: readonly string[];
}

function refuse(message: string, hint: string): never {
  throw new HarnessError('bad-arguments', `nightly --emit=kubernetes: ${message}`, { hint });
}

export async function nightInputs(config: Readonly<NightlyConfig>): Promise<NightInputs> {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-emit-'));
  try {
    const shardArgs: string[] = [];
    const mergeArgs: string[] = [];
    const carried: string[] = [];
    const expectations = expectationsPath(config.expectations);
    if (expectations) {
      const plugin = loadExpectations(expectations).find((u) => lockRef(u.lock).kind !== 'builtin');
      if (plugin)
        refuse(
          `${plugin.from} names the lock ${plugin.lock}, whose code is on this machine and not in the pods' image.`,
          'build an image with your locks in it and run `fencepost nightly --shard=<i>/<n>` from it, or keep built-in locks in the expectations file',
        );
      fs.copyFileSync(expectations, path.join(stage, 'expectations.json'));
      shardArgs.push(`--expectations=${INPUTS_DIR}/expectations.json`);
      carried.push(`--expectations=${shownPath(expectations)}`);
    }
    const bugs = knownBugsDir(config.knownBugs);
    if (bugs) {
      // Read as the night reads them (trust file, damaged bundles), then their folder goes in as it is.
      (await readKnownBugs(bugs)).forEach((b) => removeUnpacked(b.input));
      fs.cpSync(bugs, path.join(stage, 'known-bugs'), { recursive: true, verbatimSymlinks: true });
      shardArgs.push(`--known-bugs=${INPUTS_DIR}/known-bugs`);
      carried.push(`--known-bugs=${shownPath(bugs)}`);
    }
    if (config.baseline) {
      fs.mkdirSync(path.join(stage, 'baseline'));
      for (const { dir } of readNightlyFiles(config.baseline).slice(0, 1))
        for (const f of fs.readdirSync(dir).filter((f) => /^nightly(\.shard-\d+-of-\d+)?\.json$/.test(f)))
          fs.copyFileSync(path.join(dir, f), path.join(stage, 'baseline', f));
      mergeArgs.push(`--baseline=${INPUTS_DIR}/baseline`);
      carried.push(`--baseline=${shownPath(config.baseline)}`);
    }
    if (!carried.length) return { tgz: null, shardArgs, mergeArgs, carried };
    const tgz = path.join(stage, '..', `${path.basename(stage)}.tgz`);
    try {
      await execa('tar', ['-czf', tgz, '-C', stage, '.']);
      const bytes = fs.readFileSync(tgz);
      if (bytes.length > MAX_INPUTS_BYTES)
        refuse(
          `${carried.join(', ')} packed are ${bytes.length} bytes; a ConfigMap carries at most ${MAX_INPUTS_BYTES}.`,
          'drop --baseline and compare afterwards (`fencepost nightly merge <merged> --results=<dir> --baseline=<dir>`), or keep fewer known bugs',
        );
      return { tgz: bytes.toString('base64'), shardArgs, mergeArgs, carried };
    } finally {
      fs.rmSync(tgz, { force: true });
    }
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** The shell words that unpack the carried files before fencepost runs (nothing when none are carried). */
export function unpackInputs(inputs: Pick<NightInputs, 'tgz'>): string {
  if (!inputs.tgz) return '';
  // The umask only for the unpacking (a subshell): private folders, as the known bugs' ownership check wants.
  return `(umask 077 && mkdir -p ${INPUTS_DIR} && tar -xzf ${INPUTS_MOUNT}/${INPUTS_KEY} -C ${INPUTS_DIR} --no-same-owner --no-same-permissions) && `;
}
