import { CLI } from '../common/cli-name.ts';
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { Op } from '../history/op.ts';
import { parseHistory, validateHistory } from '../history/reader.ts';
import { EXIT } from '../common/exit-codes.ts';
import { RUN_FILES } from '../store/run-dir.ts';
import type { Valid } from '../checkers/run-results.ts';
import { mergeValid } from '../checkers/compose.ts';
import { verdictExitCode, verdictWord } from '../checkers/verdict.ts';
import { analyze } from './analyze.ts';
import { recheckSummary } from './run-summary.ts';
import { wantsColour } from './verdict-colour.ts';
import { parseEdnHistory } from '../checkers/edn-history.ts';
import { checkLinearizable, type LinearizableResult } from '../checkers/linearizable.ts';
import { HISTORY_MODELS, historyModel } from '../checkers/models/registry.ts';
import { parseCheckArgs } from './check-options.ts';

const USAGE = `usage:
  ${CLI} check <run-dir>                  re-check a stored run; rewrites <run-dir>/${RUN_FILES.results}
  ${CLI} check --model=<model> <file>     check a history (our ${RUN_FILES.history}, or Jepsen EDN) against a model
  ${CLI} check --model=<model> <file|dir>…  check many in one process: one line each, then a total;
                                                      a directory means every .edn/.jsonl file under it

options:
  --model=<${HISTORY_MODELS.map((m) => m.name).join('|')}>
  --deadline=<ms>     give up after this long; the verdict is then unknown (exit 2). Default 60000.
  --initial=<json>    initial register value for register/cas-register (default null; Knossos's own tests use 0)

exit codes: 0 valid, 1 invalid, 2 unknown, 254 bad arguments (many histories: the merged verdict, false > unknown > true)`;

type CheckArgs = Exclude<ReturnType<typeof parseCheckArgs>, string>;

/** `check …`: returns the exit code. Args are what follows `check` on the command line. */
export async function checkCommand(args: readonly string[]): Promise<number> {
  const parsed = parseCheckArgs(args);
  if (typeof parsed === 'string') {
    console.error(`check: ${parsed}\n\n${USAGE}`);
    return EXIT.badArguments;
  }
  if (parsed.model === undefined) return checkRunDir(parsed);
  const single =
    parsed.targets.length === 1 && !(existsSync(parsed.targets[0]) && statSync(parsed.targets[0]).isDirectory());
  return single ? checkModel(parsed, parsed.model) : checkMany(parsed, parsed.model);
}

async function checkRunDir(args: CheckArgs): Promise<number> {
  const dir = args.targets[0];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    const hint = existsSync(dir)
      ? ` (to check a single history file, name a model: --model=<${HISTORY_MODELS.map((m) => m.name).join('|')}>)`
      : '';
    console.error(`check: ${dir} is not a run directory${hint}\n\n${USAGE}`);
    return EXIT.badArguments;
  }
  const analysis = analyze(dir, {
    ...(args.deadlineMs !== undefined ? { deadlineMs: args.deadlineMs } : {}),
    warn: (line) => console.error(`check: warning: ${line}`),
  });
  if (!analysis.ok) {
    console.error(`check: ${analysis.problem}`);
    return EXIT.badArguments;
  }
  console.log(
    recheckSummary(dir, analysis.results, analysis.fencing, {
      colour: wantsColour(process.stdout),
      ...(analysis.run ? { run: analysis.run } : {}),
    }),
  );
  return verdictExitCode(analysis.results.valid);
}

async function checkModel(args: CheckArgs, modelName: string): Promise<number> {
  const file = args.targets[0];
  if (!existsSync(file) || !statSync(file).isFile()) {
    console.error(
      `check: ${file} is not a file; --model checks history files (${RUN_FILES.history} or a Jepsen history.edn) or directories of them`,
    );
    return EXIT.badArguments;
  }
  const checked = checkHistoryFile(file, modelName, args);
  if (typeof checked === 'string') {
    console.error(`check: ${checked}`);
    return EXIT.badArguments;
  }
  console.log(modelSummary(file, checked.result, checked.ignored));
  return verdictExitCode(checked.result.valid);
}

/**
 * Many histories in one process: start-up (~0.5 s of Node and tsx) is paid once instead of per file, which is
 * most of the cost when each check takes milliseconds. One line per file, then a total; the exit code is the
 * merged verdict, or 254 if any path could not be read (the verdict would be about fewer files than asked).
 */
async function checkMany(args: CheckArgs, modelName: string): Promise<number> {
  const files: string[] = [];
  for (const target of args.targets) {
    if (!existsSync(target)) {
      console.error(`check: ${target} does not exist; --model checks history files or directories of them`);
      return EXIT.badArguments;
    }
    if (statSync(target).isDirectory()) {
      const found = historyFilesUnder(target);
      for (const problem of found.problems) console.error(`check: ${problem}`);
      if (found.links) console.error(`check: ${target}: ${found.links} symbolic link(s) not followed`);
      if (found.problems.length) return EXIT.badArguments;
      if (found.files.length === 0) {
        console.error(`check: ${target} holds no .edn or .jsonl file`);
        return EXIT.badArguments;
      }
      files.push(...found.files);
    } else files.push(target);
  }
  const started = performance.now();
  const counts = { VALID: 0, INVALID: 0, UNKNOWN: 0, unreadable: 0 };
  const verdicts: Valid[] = [];
  const width = Math.min(
    80,
    files.reduce((w, f) => Math.max(w, f.length), 0),
  );
  for (const file of files) {
    const checked = checkHistoryFile(file, modelName, args);
    if (typeof checked === 'string') {
      counts.unreadable++;
      console.log(`ERROR    ${file.padEnd(width)}  ${checked}`);
      continue;
    }
    const r = checked.result;
    counts[verdictWord(r.valid)]++;
    verdicts.push(r.valid);
    const why = r.cause ? `, ${r.cause === 'timeout' ? 'deadline reached' : 'memo cache full'}` : '';
    const cx = r.counterexample
      ? `  ${r.counterexample.op.description} at op #${r.counterexample.op.indexes[0]} cannot be linearized`
      : '';
    console.log(
      `${verdictWord(r.valid).padEnd(8)} ${file.padEnd(width)}  ${r.operations} ops, ${r.elapsedMs.toFixed(0)} ms${why}${cx}`,
    );
  }
  const ms = performance.now() - started;
  const merged = mergeValid(verdicts);
  console.log(
    `total: ${files.length} histories as ${modelName}: ${counts.VALID} valid, ${counts.INVALID} invalid, ${counts.UNKNOWN} unknown` +
      `${counts.unreadable ? `, ${counts.unreadable} unreadable` : ''} in ${ms.toFixed(0)} ms → ${counts.unreadable ? 'bad input' : verdictWord(merged)}`,
  );
  return counts.unreadable > 0 ? EXIT.badArguments : verdictExitCode(merged);
}

/**
 * The history files under `dir`, walked without following a symbolic link (a link loop, or one into a live run's
 * folder, took this walk 9 s and 236 MB to a crash), and what could not be read on the way: a folder it may not
 * list is a problem the caller reports (254: a verdict about fewer files than asked is no verdict), never a crash.
 */
export function historyFilesUnder(dir: string): { files: string[]; problems: string[]; links: number } {
  const files: string[] = [];
  const problems: string[] = [];
  let links = 0;
  const walk = (at: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch (e) {
      problems.push(`cannot read the folder ${at}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return;
    }
    for (const e of entries) {
      const p = path.join(at, e.name);
      if (e.isSymbolicLink()) links++;
      else if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.(edn|jsonl)$/i.test(e.name)) files.push(p);
    }
  };
  walk(dir);
  return { files: files.sort(), problems, links };
}

/** Reads, builds and checks one history file; a string is why it could not be read. */
function checkHistoryFile(
  file: string,
  modelName: string,
  args: CheckArgs,
): { result: LinearizableResult; ignored: Record<string, number> } | string {
  let history: Op[];
  try {
    const text = readFileSync(file, 'utf8');
    history = looksLikeJsonl(file, text) ? jsonlOrThrow(text) : parseEdnHistory(text);
  } catch (e) {
    return `cannot read ${file}: ${(e as Error).message}`;
  }
  // An empty file, or one whose only line is not JSON (dropped as a cut-short tail), is not a history: a verdict
  // about no operations would be VALID about nothing.
  if (history.length === 0)
    return `${file} holds no operations: not a history (our ${RUN_FILES.history}, one JSON op a line, or a Jepsen EDN history)`;
  let built;
  try {
    built = historyModel(modelName)!.build(history, args.initial !== undefined ? { initial: args.initial } : {});
  } catch (e) {
    return `${file}: ${(e as Error).message}`;
  }
  // Only when the model knows none of the ops: a history whose ops all failed is a real (trivially linearizable)
  // history, as Knossos's own corpus has it.
  if (built.ops.length === 0 && history.every((o) => String(o.f) in built.ignored)) {
    const ignored = Object.entries(built.ignored)
      .map(([f, n]) => `${f} ×${n}`)
      .join(', ');
    return `${file}: none of its ${history.length} ops is one the ${modelName} model knows (ignored: ${ignored || 'all'}); nothing to check — is it the right --model?`;
  }
  const result = checkLinearizable(
    built.model,
    built.ops,
    args.deadlineMs !== undefined ? { deadlineMs: args.deadlineMs } : {},
  );
  return { result, ignored: built.ignored };
}

function looksLikeJsonl(file: string, text: string): boolean {
  if (/\.jsonl?$/i.test(file)) return true;
  if (/\.edn$/i.test(file)) return false;
  const firstLine = text.split('\n').find((l) => l.trim() !== '') ?? '';
  try {
    const x = JSON.parse(firstLine);
    return x !== null && typeof x === 'object' && !Array.isArray(x);
  } catch {
    return false;
  }
}

function jsonlOrThrow(text: string): Op[] {
  const parsed = parseHistory(text);
  const problems = validateHistory(parsed.ops);
  if (problems.length > 0) {
    throw new Error(`${problems.length} malformed op(s), first: op ${problems[0].index}: ${problems[0].problem}`);
  }
  return parsed.ops;
}

function modelSummary(file: string, r: LinearizableResult, ignored: Record<string, number>): string {
  const lines = [
    `${verdictWord(r.valid)}: ${file} ${r.valid === true ? 'is' : r.valid === false ? 'is not' : 'may or may not be'} linearizable as a ${r.model}`,
    `  ${r.operations} ops in ${r.partitions} partition(s), ${r.explored} configurations explored in ${r.elapsedMs.toFixed(0)} ms`,
  ];
  if (r.cause === 'timeout') lines.push('  the search hit its deadline; raise --deadline to try harder');
  if (r.cause === 'memory')
    lines.push(
      '  the search filled its memo cache (2M configurations) before deciding; the history is too hard to settle',
    );
  const skipped = Object.entries(ignored);
  if (skipped.length > 0)
    lines.push(`  ignored ops the model does not know: ${skipped.map(([f, n]) => `${f} ×${n}`).join(', ')}`);
  if (r.counterexample) {
    lines.push(`  ${r.counterexample.message}`);
    lines.push(`  history indexes to look at: ${r.counterexample.window.join(', ')}`);
  }
  return lines.join('\n');
}
