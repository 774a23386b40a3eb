import path from 'node:path';
import { CLI } from '../common/cli-name.ts';
import { EXIT } from '../common/exit-codes.ts';
import { HarnessError } from '../common/errors.ts';
import { describeSignature, failureSignature, shotIndex } from '../checkers/failure-signature.ts';
import { lockFolderName } from '../store/results-store.ts';
import { shellQuote } from '../store/rerun-line.ts';
import { bad, parseArgv } from '../harness/option-table.ts';
import { REPRO_OPTIONS } from '../harness/reproduce-options.ts';
import { writeBundle, type WrittenBundle } from './write-bundle.ts';
import { readFailingRun } from './failing-run.ts';

export const REPRO_USAGE = `usage: ${CLI} repro <run-dir> [--out=<dir>]

Turns a failing run into a reproduction anyone can run: a folder (and a .tgz of it) with the failure's story
scripted as a scenario, the failing window of the history, the lock, the options, seed and versions, and a README
that tells the story and the one command that replays it (${CLI} replay <bundle>). No secret goes into it.`;

/** `repro <run-dir>`: exit 0 with the bundle written; 254 for a folder that is not a failing run. */
export async function reproCommand(args: readonly string[]): Promise<number> {
  const { values, words } = parseArgv(args, REPRO_OPTIONS, { words: 'collect' });
  if (values.help) {
    console.log(REPRO_USAGE);
    return EXIT.valid;
  }
  if (words.length !== 1) throw bad(`repro takes one run folder, got ${words.length}.`, REPRO_USAGE.split('\n')[0]);
  const written = await reproduce(words[0], values.out);
  console.log(
    [
      `repro: ${written.signatureText} — ${written.bundle.description}`,
      `  bundle: ${written.bundle.dir}/ and ${path.basename(written.bundle.tgz)} (${Math.ceil(written.bundle.bytes / 1024)} kB, no secrets of the run found)`,
      ...(written.bundle.notCopied.length
        ? [
            `  not copied: ${written.bundle.notCopied.join(', ')} (the lock's command names it; add it by hand if it is needed and holds no secret)`,
          ]
        : []),
      `  script: ${written.bundle.steps.join(' → ')}`,
      `  replay: ${CLI} replay ${shellQuote(written.bundle.dir)}`,
    ].join('\n'),
  );
  return EXIT.valid;
}

/** The bundle of the failing run in `runDir`, written into `out` (default: the run folder). */
export async function reproduce(
  runDir: string,
  out?: string,
): Promise<{ bundle: WrittenBundle; signatureText: string }> {
  const { ops, results, test } = readFailingRun(runDir, 'repro');
  const signature = failureSignature(results, shotIndex(ops))!;
  const name = `repro-${lockFolderName(test.lock)}-${path.basename(path.resolve(runDir))}`;
  const bundle = await writeBundle({ dir: runDir, ops, results, test }, signature, path.resolve(out ?? runDir), name);
  if (typeof bundle === 'string')
    throw new HarnessError('bad-arguments', `repro ${runDir}: ${bundle}; nothing written.`, {
      hint: "the run's report shows the failure; a scenario can be written by hand (docs/reproductions.md)",
    });
  return { bundle, signatureText: describeSignature(signature) };
}
