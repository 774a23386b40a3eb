import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { userPath } from '../common/user-path.ts';
import type { ReplayExpect } from '../scenario/scenario-expect.ts';
import { readScenarioFile, type Scenario } from '../scenario/scenario-file.ts';
import { badScenario } from '../scenario/scenario-config.ts';
import { BUNDLE_FILES, readBundle } from './bundle-format.ts';
import { bundleCode, type BundleCode } from './bundle-code.ts';
import { unpackBundle } from './bundle-unpack.ts';

/** What `replay` runs: a scenario file, with the failure it must show to count as reproduced. */
export interface ReplayInput {
  /** The scenario file the runs follow. */
  file: string;
  scenario: Scenario;
  /** What counts: the bundle's signature, or the scenario's `expect` (replay-expect.ts); null = any failure, named. */
  expect: ReplayExpect | null;
  /** The bundle's one-line description of the original failure, when replaying a bundle. */
  original: string | null;
  name: string;
  /** The lock the scenario loads, as the bundle names it (the progress line's); null: the scenario file's own. */
  lock: string | null;
  /** The bundle's own code a replay would run, with hashes (bundle-code.ts); empty for a built-in lock. */
  code: BundleCode['code'];
  /** The temporary folder a .tgz was unpacked into: removeUnpacked() removes it however the replay ends. */
  unpacked: string | null;
}

const bad = (what: string, problem: string) =>
  new HarnessError('bad-arguments', `replay ${what}: ${problem}`, {
    hint: 'replay takes a bundle folder or .tgz that `repro` wrote, or a scenario file (docs/reproductions.md)',
  });

/**
 * A bundle folder, a bundle's .tgz (unpacked into a fresh folder under `tmp`, the OS's temporary folder) or a
 * scenario file, read and checked; anything else, or a bundle that is incomplete, damaged or loads what it does not
 * declare, is a 254 naming the file — and a refused .tgz leaves nothing unpacked.
 */
export async function replayInput(typed: string, opts: { tmp?: string } = {}): Promise<ReplayInput> {
  // `npm run jepsen -- replay .` from a bundle's folder (its README's command) means that folder, not the checkout.
  const arg = userPath(typed);
  if (!fs.existsSync(arg)) throw bad(arg, 'no such file or folder');
  if (/\.(tgz|tar\.gz)$/.test(arg)) {
    const { into, dir } = await unpackBundle(arg, opts.tmp ?? os.tmpdir(), (problem) => bad(arg, problem));
    try {
      return { ...fromBundle(dir), unpacked: into };
    } catch (err) {
      fs.rmSync(into, { recursive: true, force: true });
      throw err;
    }
  }
  if (fs.statSync(arg).isDirectory()) {
    if (!fs.existsSync(path.join(arg, BUNDLE_FILES.bundle)))
      throw bad(arg, `not a bundle folder (no ${BUNDLE_FILES.bundle}); to run a scenario, name its file`);
    return fromBundle(arg);
  }
  if (path.basename(arg) === BUNDLE_FILES.bundle) return fromBundle(path.dirname(arg));
  const read = readScenarioFile(arg);
  if ('problems' in read) throw badScenario(arg, read.problems);
  const { scenario } = read;
  // A scenario file of the user's own: its lock is theirs, as with --scenario.
  return {
    file: arg,
    scenario,
    expect: scenario.expect,
    original: null,
    name: scenario.name,
    lock: null,
    code: [],
    unpacked: null,
  };
}

/** Removes what replayInput unpacked (a no-op for a folder or a scenario file). */
export function removeUnpacked(input: Pick<ReplayInput, 'unpacked'>): void {
  if (input.unpacked) fs.rmSync(input.unpacked, { recursive: true, force: true });
}

function fromBundle(dir: string): ReplayInput {
  const b = readBundle(dir);
  if ('problems' in b) throw bad(dir, `a damaged or incomplete bundle: ${b.problems.join('; ')}`);
  const code = bundleCode(dir, b.json, b.scenario.lock);
  if (typeof code === 'string') throw bad(dir, `refused, trusted or not: ${code}`);
  return {
    lock: code.lock,
    code: code.code,
    unpacked: null,
    file: b.scenarioFile,
    scenario: b.scenario,
    expect: b.json.signature,
    original: b.json.description,
    name: path.basename(path.resolve(dir)),
  };
}
