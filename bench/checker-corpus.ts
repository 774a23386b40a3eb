import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEdnHistory } from '../checkers/edn-history.ts';
import { checkLinearizable } from '../checkers/linearizable.ts';
import { historyModel } from '../checkers/models/registry.ts';
import type { Goal } from './outcome.ts';

/** Part 3 of the checker benchmark (bench/checker.ts): the Knossos corpus checked three ways. */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = fileURLToPath(new URL('../test/corpus/knossos', import.meta.url));
/** Each corpus folder, its model and the verdict every history in it must get. */
const CORPUS_SETS = [
  ['cas-register', 'cas-register/good', true],
  ['cas-register', 'cas-register/bad', false],
  ['mutex', 'mutex/bad', false],
] as const;

interface CorpusFile {
  model: string;
  file: string;
  expected: boolean;
}

function knossosCorpus():
  | {
      histories: number;
      allRight: boolean;
      totalMs: number;
      slowest: { file: string; ms: number };
      files: CorpusFile[];
    }
  | undefined {
  const root = CORPUS;
  if (!existsSync(root)) {
    console.log(`\n(Knossos corpus not found at ${root}; skipped)`);
    return undefined;
  }
  const sets = CORPUS_SETS;
  const files: CorpusFile[] = [];
  let histories = 0;
  let allRight = true;
  let totalMs = 0;
  let slowest = { file: '', ms: 0 };
  for (const [model, dir, expected] of sets) {
    for (const f of readdirSync(path.join(root, dir)).filter((x) => x.endsWith('.edn'))) {
      const file = path.join(dir, f);
      files.push({ model, file, expected });
      const started = performance.now();
      const { model: m, ops } = historyModel(model)!.build(
        parseEdnHistory(readFileSync(path.join(root, file), 'utf8')),
        {},
      );
      const verdict = checkLinearizable(m, ops, { deadlineMs: 60_000 }).valid;
      const ms = performance.now() - started;
      histories++;
      totalMs += ms;
      if (verdict !== expected) allRight = false;
      if (ms > slowest.ms) slowest = { file, ms };
    }
  }
  return { histories, allRight, totalMs, slowest, files };
}

const CHECK = ['--import', 'tsx', 'cli.ts', 'check'];

/** What a script looping over the files pays: a fresh Node + tsx start-up per history. */
function corpusOneProcessPerFile(
  files: CorpusFile[],
  scaleTo: number,
): { files: number; msPerFile: number; totalMs: number; allRight: boolean } {
  const started = performance.now();
  let allRight = true;
  for (const f of files) {
    const r = spawnSync(process.execPath, [...CHECK, `--model=${f.model}`, path.join(CORPUS, f.file)], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    if (r.status !== (f.expected ? 0 : 1)) allRight = false;
  }
  const msPerFile = (performance.now() - started) / files.length;
  return { files: files.length, msPerFile, totalMs: msPerFile * scaleTo, allRight };
}

/** One `check --model=<m> <dir>` process per model; its exit code is the merged verdict, its lines each file's. */
function corpusBulk(): { processes: number; totalMs: number; allRight: boolean } {
  const started = performance.now();
  let allRight = true;
  const byModel = new Map<string, (typeof CORPUS_SETS)[number][]>();
  for (const set of CORPUS_SETS) byModel.set(set[0], [...(byModel.get(set[0]) ?? []), set]);
  for (const [model, sets] of byModel) {
    const r = spawnSync(
      process.execPath,
      [...CHECK, `--model=${model}`, ...sets.map(([, dir]) => path.join(CORPUS, dir))],
      { cwd: ROOT, encoding: 'utf8' },
    );
    for (const [, dir, expected] of sets) {
      const lines = r.stdout.split('\n').filter((l) => l.includes(path.join(CORPUS, dir) + path.sep));
      const wanted = expected ? 'VALID ' : 'INVALID ';
      if (
        lines.length !== readdirSync(path.join(CORPUS, dir)).filter((x) => x.endsWith('.edn')).length ||
        !lines.every((l) => l.startsWith(wanted))
      )
        allRight = false;
    }
    if (r.status !== (sets.every(([, , e]) => e) ? 0 : 1)) allRight = false;
  }
  return { processes: byModel.size, totalMs: performance.now() - started, allRight };
}

/** Part 3: the Knossos corpus in this process, one process per file and in bulk; null without the corpus. */
export function corpusRuns(quick: boolean, goalMs: number): { goals: Goal[]; knossos: Record<string, unknown> } | null {
  const corpus = knossosCorpus();
  if (!corpus) return null;
  console.log(
    `\nKnossos corpus: ${corpus.histories} histories, all verdicts right: ${corpus.allRight}, total ${corpus.totalMs.toFixed(0)} ms in this process, slowest ${corpus.slowest.file} ${corpus.slowest.ms.toFixed(1)} ms`,
  );
  // One process per file costs ~1 s each on a busy 2-core machine: --quick times every 6th file and scales.
  const perFile = corpusOneProcessPerFile(
    quick ? corpus.files.filter((_, i) => i % 6 === 0) : corpus.files,
    corpus.files.length,
  );
  const bulk = corpusBulk();
  const sampled =
    perFile.files < corpus.histories
      ? ` (${perFile.files} timed, ${perFile.msPerFile.toFixed(0)} ms each, scaled to ${corpus.histories})`
      : '';
  console.log(
    `Knossos corpus, one check process per file: ${perFile.totalMs.toFixed(0)} ms${sampled}, verdicts right: ${perFile.allRight}`,
  );
  console.log(
    `Knossos corpus, one bulk check process per model: ${bulk.processes} processes, ${bulk.totalMs.toFixed(0)} ms, verdicts right: ${bulk.allRight}`,
  );
  const goals: Goal[] = [
    {
      what: `Knossos corpus verdicts (${corpus.histories}; in-process, per-file, bulk)`,
      goal: 'all right',
      measured: `${corpus.allRight && perFile.allRight && bulk.allRight ? 'all right' : 'WRONG'}`,
      met: corpus.allRight && perFile.allRight && bulk.allRight,
    },
    {
      what: 'Knossos corpus, bulk check (vs one process per file)',
      goal: `< ${goalMs} ms`,
      measured: `${bulk.totalMs.toFixed(0)} ms (vs ${perFile.totalMs.toFixed(0)} ms${sampled ? ', scaled' : ''})`,
      met: bulk.totalMs < goalMs,
    },
  ];
  return { goals, knossos: { inProcess: { ...corpus, files: undefined }, perFile, bulk } };
}
