import { CLI } from '../common/cli-name.ts';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Op } from '../history/op.ts';
import { parseHistory, readHistory, validateHistory } from '../history/reader.ts';
import { inTimeOrder } from '../history/time-order.ts';
import { EXIT } from '../common/exit-codes.ts';
import { isRecord } from '../common/is-record.ts';
import { readJsonFile } from '../store/run-files.ts';
import type { RunResults, Valid } from '../checkers/run-results.ts';
import { checkOptionsFor, checkRun } from '../checkers/check-run.ts';
import { livenessLines } from '../checkers/liveness.ts';
import { mergeValid } from '../checkers/compose.ts';
import { withReasons } from '../checkers/unknown-reasons.ts';
import { parseEdnHistory } from '../checkers/edn-history.ts';
import { checkLinearizable, type LinearizableResult } from '../checkers/linearizable.ts';
import { HISTORY_MODELS, historyModel } from '../checkers/models/registry.ts';

const USAGE = `usage:
  ${CLI} check <run-dir>                  re-check a stored run; rewrites <run-dir>/results.json
  ${CLI} check --model=<model> <file>     check a history (our history.jsonl, or Jepsen EDN) against a model
  ${CLI} check --model=<model> <file|dir>…  check many in one process: one line each, then a total;
                                                      a directory means every .edn/.jsonl file under it

options:
  --model=<${HISTORY_MODELS.map((m) => m.name).join('|')}>
  --deadline=<ms>     give up after this long; the verdict is then unknown (exit 2). Default 60000.
  --initial=<json>    initial register value for register/cas-register (default null; Knossos's own tests use 0)

exit codes: 0 valid, 1 invalid, 2 unknown, 254 bad arguments (many histories: the merged verdict, false > unknown > true)`;

interface CheckArgs {
  model?: string;
  deadlineMs?: number;
  initial?: unknown;
  targets: string[];
}

/** `check …`: returns the exit code. Args are what follows `check` on the command line. */
export async function checkCommand(args: string[]): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    console.error(`check: ${parsed}\n\n${USAGE}`);
    return EXIT.badArguments;
  }
  if (parsed.model === undefined) return checkRunDir(parsed);
  const single =
    parsed.targets.length === 1 && !(existsSync(parsed.targets[0]) && statSync(parsed.targets[0]).isDirectory());
  return single ? checkModel(parsed, parsed.model) : checkMany(parsed, parsed.model);
}

function parseArgs(args: string[]): CheckArgs | string {
  const positional: string[] = [];
  const out: Partial<CheckArgs> = {};
  for (const arg of args) {
    const [flag, value] = arg.startsWith('--') ? splitFlag(arg) : [undefined, undefined];
    if (flag === undefined) positional.push(arg);
    else if (flag === '--help' || flag === '-h') return 'help requested';
    else if (flag === '--model') {
      if (!value) return '--model needs a value';
      if (!historyModel(value))
        return `unknown model "${value}"; valid models: ${HISTORY_MODELS.map((m) => `${m.name} (${m.summary})`).join(', ')}`;
      out.model = value;
    } else if (flag === '--deadline') {
      const ms = Number(value);
      if (!value || !Number.isFinite(ms) || ms <= 0)
        return `--deadline must be a positive number of milliseconds, got "${value ?? ''}"`;
      out.deadlineMs = ms;
    } else if (flag === '--initial') {
      try {
        out.initial = JSON.parse(value ?? '');
      } catch {
        return `--initial must be a JSON value (e.g. 0, null, "x"), got "${value ?? ''}"`;
      }
    } else return `unknown option ${flag}`;
  }
  if (positional.length === 0) return 'missing the run directory or history file to check';
  if (positional.length > 1 && out.model === undefined) {
    return `expected one run directory, got ${positional.length}: ${positional.join(' ')} (to check many history files, name a model: --model=<${HISTORY_MODELS.map((m) => m.name).join('|')}>)`;
  }
  if (out.initial !== undefined && out.model !== 'register' && out.model !== 'cas-register') {
    return '--initial only applies to --model=register or --model=cas-register';
  }
  return { ...out, targets: positional };
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq < 0 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
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
  const historyFile = path.join(dir, 'history.jsonl');
  if (!existsSync(historyFile)) {
    console.error(
      `check: ${historyFile} does not exist; a run directory holds history.jsonl, test.json and results.json`,
    );
    return EXIT.badArguments;
  }
  const history = readJsonl(historyFile);
  if (typeof history === 'string') {
    console.error(`check: ${history}`);
    return EXIT.badArguments;
  }
  if (history.length === 0) {
    console.error(`check: ${historyFile} holds no operations; there is nothing to check (did the run start?)`);
    return EXIT.badArguments;
  }
  const test = readTestJson(path.join(dir, 'test.json'));
  const options = checkOptionsFor(typeof test === 'string' ? {} : test);
  const fencing = options.fencing;
  const checked = checkRun(history, {
    ...options,
    ...(args.deadlineMs !== undefined ? { deadlineMs: args.deadlineMs } : {}),
  });
  // Without the run's own record the check cannot hold it to its rules: a counterexample still stands, a VALID
  // cannot be earned.
  const results =
    typeof test === 'string'
      ? {
          ...checked,
          unknownReasons: [test, ...checked.unknownReasons],
          valid: withReasons(checked.valid, [test]),
        }
      : checked;
  writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(runSummary(dir, results, fencing));
  return exitCode(results.valid);
}

function readJsonl(file: string): Op[] | string {
  let parsed;
  try {
    parsed = readHistory(file); // in chunks: a long run's history outgrows one string
  } catch (e) {
    return `${file}: ${(e as Error).message}`;
  }
  if (parsed.truncatedTail)
    console.error(`check: warning: the last line of ${file} was cut short (crash mid-write?) and was ignored`);
  const problems = validateHistory(parsed.ops);
  if (problems.length > 0) {
    const shown = problems
      .slice(0, 5)
      .map((p) => `  op ${p.index}: ${p.problem}`)
      .join('\n');
    console.error(
      `check: warning: ${file} breaks ${problems.length} journal invariant(s); checkers that cannot cope will say unknown:\n${shown}`,
    );
  }
  // A run that ended normally sealed its history in time order; one a crash cut short is ordered here.
  return inTimeOrder(parsed.ops);
}

/**
 * The run's test.json, or why it cannot be read: without it the check does not know the run's faults (which had to
 * hit), its clients (a VALID needs two writers) or its fencing, so the reason becomes the verdict's first.
 */
function readTestJson(testFile: string): Parameters<typeof checkOptionsFor>[0] | string {
  const problems: string[] = [];
  const test = readJsonFile(testFile, problems);
  const why = problems.length
    ? problems.join('; ')
    : !isRecord(test)
      ? `${testFile} is not a JSON object`
      : !isRecord(test.config)
        ? `${testFile} has no "config" object`
        : undefined;
  if (why === undefined) return test as Parameters<typeof checkOptionsFor>[0];
  const reason = `test.json unreadable (${why}): the check cannot tell which faults had to hit, how many clients ran or whether the run was fenced, so it cannot earn a VALID`;
  console.error(`check: warning: ${reason}`);
  return reason;
}

async function checkModel(args: CheckArgs, modelName: string): Promise<number> {
  const file = args.targets[0];
  if (!existsSync(file) || !statSync(file).isFile()) {
    console.error(
      `check: ${file} is not a file; --model checks history files (history.jsonl or a Jepsen history.edn) or directories of them`,
    );
    return EXIT.badArguments;
  }
  const checked = checkHistoryFile(file, modelName, args);
  if (typeof checked === 'string') {
    console.error(`check: ${checked}`);
    return EXIT.badArguments;
  }
  console.log(modelSummary(file, checked.result, checked.ignored));
  return exitCode(checked.result.valid);
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
      if (found.length === 0) {
        console.error(`check: ${target} holds no .edn or .jsonl file`);
        return EXIT.badArguments;
      }
      files.push(...found);
    } else files.push(target);
  }
  const started = performance.now();
  const counts = { valid: 0, invalid: 0, unknown: 0, unreadable: 0 };
  const verdicts: Valid[] = [];
  const width = Math.min(80, Math.max(...files.map((f) => f.length)));
  for (const file of files) {
    const checked = checkHistoryFile(file, modelName, args);
    if (typeof checked === 'string') {
      counts.unreadable++;
      console.log(`ERROR    ${file.padEnd(width)}  ${checked}`);
      continue;
    }
    const r = checked.result;
    counts[r.valid === true ? 'valid' : r.valid === false ? 'invalid' : 'unknown']++;
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
    `total: ${files.length} histories as ${modelName}: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.unknown} unknown` +
      `${counts.unreadable ? `, ${counts.unreadable} unreadable` : ''} in ${ms.toFixed(0)} ms → ${counts.unreadable ? 'bad input' : verdictWord(merged)}`,
  );
  return counts.unreadable > 0 ? EXIT.badArguments : exitCode(merged);
}

function historyFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(edn|jsonl)$/i.test(f))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
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
    return `${file} holds no operations: not a history (our history.jsonl, one JSON op a line, or a Jepsen EDN history)`;
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

function exitCode(valid: Valid): number {
  return valid === true ? EXIT.valid : valid === false ? EXIT.invalid : EXIT.unknown;
}

function verdictWord(valid: Valid): string {
  return valid === true ? 'VALID' : valid === false ? 'INVALID' : 'UNKNOWN';
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

function runSummary(dir: string, r: RunResults, fencing: boolean): string {
  const lines = [
    `${verdictWord(r.valid)}: ${dir}${fencing ? ' (fenced)' : ''}${r.valid === 'unknown' && r.unknownReasons.length > 0 ? `: ${r.unknownReasons[0]}` : ''}`,
    ...(r.valid === 'unknown' ? r.unknownReasons.slice(1).map((w) => `  also: ${w}`) : []),
    `  lost updates: ${r.lostUpdates}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   stale writes rejected: ${r.staleWritesRejected}`,
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info) over ${(r.durationMs / 1000).toFixed(1)} s, ${r.throughput.toFixed(1)} ok/s; faults: ${r.faults.length}`,
    ...livenessLines(r.liveness ?? undefined),
  ];
  for (const [name, c] of Object.entries(r.checkers)) {
    const why = c.error
      ? ` (${c.error})`
      : c.cause === 'timeout'
        ? ' (deadline reached)'
        : c.cause === 'memory'
          ? ' (memo cache full)'
          : '';
    lines.push(`  ${name.padEnd(20)} ${verdictWord(c.valid)}${why}`);
  }
  const cx = (r.checkers.linearizable as Partial<LinearizableResult> | undefined)?.counterexample;
  if (cx) lines.push(`  ${cx.message}`);
  lines.push(`  wrote ${path.join(dir, 'results.json')}`);
  return lines.join('\n');
}
