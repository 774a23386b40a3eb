import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { HarnessError } from '../common/errors.ts';
import { userPath } from '../common/user-path.ts';
import type { FailureSignature } from '../checkers/failure-signature.ts';
import { readScenarioFile, type Scenario } from '../scenario/scenario-file.ts';
import { badScenario } from '../scenario/scenario-config.ts';
import { BUNDLE_FILES, readBundle } from './bundle-format.ts';

/** What `replay` runs: a scenario file, with the failure it must show to count as reproduced. */
export interface ReplayInput {
  /** The scenario file the runs follow. */
  file: string;
  scenario: Scenario;
  /** The failure that counts: the bundle's signature, or the scenario's `expect`; null = any failure, named. */
  expect: FailureSignature | null;
  /** The bundle's one-line description of the original failure, when replaying a bundle. */
  original: string | null;
  name: string;
}

const bad = (what: string, problem: string) =>
  new HarnessError('bad-arguments', `replay ${what}: ${problem}`, {
    hint: 'replay takes a bundle folder or .tgz that `repro` wrote, or a scenario file (docs/reproductions.md)',
  });

/**
 * A bundle folder, a bundle's .tgz (unpacked into a folder of its own under the OS's temporary folder) or a scenario
 * file, read and checked; anything else, or a bundle that is incomplete or damaged, is a 254 naming the file.
 */
export async function replayInput(typed: string): Promise<ReplayInput> {
  // `npm run jepsen -- replay .` from a bundle's folder (its README's command) means that folder, not the checkout.
  const arg = userPath(typed);
  if (!fs.existsSync(arg)) throw bad(arg, 'no such file or folder');
  if (/\.(tgz|tar\.gz)$/.test(arg)) return fromBundle(await unpack(arg));
  if (fs.statSync(arg).isDirectory()) {
    if (!fs.existsSync(path.join(arg, BUNDLE_FILES.bundle)))
      throw bad(arg, `not a bundle folder (no ${BUNDLE_FILES.bundle}); to run a scenario, name its file`);
    return fromBundle(arg);
  }
  if (path.basename(arg) === BUNDLE_FILES.bundle) return fromBundle(path.dirname(arg));
  const read = readScenarioFile(arg);
  if ('problems' in read) throw badScenario(arg, read.problems);
  return { file: arg, scenario: read.scenario, expect: read.scenario.expect, original: null, name: read.scenario.name };
}

function fromBundle(dir: string): ReplayInput {
  const b = readBundle(dir);
  if ('problems' in b) throw bad(dir, `a damaged or incomplete bundle: ${b.problems.join('; ')}`);
  return {
    file: b.scenarioFile,
    scenario: b.scenario,
    expect: b.json.signature,
    original: b.json.description,
    name: path.basename(path.resolve(dir)),
  };
}

/**
 * A bundle's .tgz unpacked into a fresh folder: every entry must sit inside one top folder, with no absolute path,
 * no `..` and no link (a tarball from elsewhere must not write outside its folder). Returns the bundle folder.
 */
async function unpack(tgz: string): Promise<string> {
  let listing: string;
  try {
    listing = (await execa('tar', ['-tvzf', tgz])).stdout;
  } catch (err) {
    throw bad(tgz, `not a readable .tgz (${(err as { shortMessage?: string }).shortMessage ?? String(err)})`);
  }
  const lines = listing.split('\n').filter(Boolean);
  const names = (await execa('tar', ['-tzf', tgz])).stdout.split('\n').filter(Boolean);
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const unsafe = names.find((n) => path.isAbsolute(n) || n.split('/').includes('..'));
  const link = lines.find((l) => !/^[-d]/.test(l));
  if (!names.length || tops.size !== 1 || unsafe || link)
    throw bad(
      tgz,
      unsafe
        ? `an entry escapes its folder: ${unsafe}`
        : link
          ? `it holds a link or device: ${link}`
          : 'a bundle .tgz holds one folder',
    );
  const into = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-replay-'));
  await execa('tar', ['-xzf', tgz, '-C', into, '--no-same-owner']);
  return path.join(into, [...tops][0]);
}
