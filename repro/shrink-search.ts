import type { FaultName } from '../faults/fault-names.ts';

/**
 * The shrinker's search, apart from what runs a candidate (Porcupine keeps its search, its driver and its
 * counterexample apart): a failing free run's configuration reduced one dimension at a time — clients, accounts,
 * fault kinds, then shots, duration and think time — each candidate run `tries` times and kept while it still
 * reproduces the original's signature at least `keep` times (QuickCheck's ?SHRINK with ?ALWAYS, turned around:
 * lock failures are rare, so "at least k of n" rather than "every time"). The original is measured first by the same
 * rule: a failure that does not recur cannot be shrunk. Each number is tried at its floor first, then bisected. A
 * time budget bounds it: no run starts once the budget is spent. Deterministic for a runner's outcomes: the runner
 * seeds each run from the candidate's and the try's numbers.
 */
export interface ShrinkDims {
  concurrency: number;
  accounts: number;
  faults: FaultName[];
  /** At most this many fault shots; null = as many as the run has time for. */
  shots: number | null;
  timeLimitS: number;
  thinkMs: number;
}

/** The smallest each number may go: 2 clients (a lost update needs two writers), a run long enough for its faults. */
export interface ShrinkFloors {
  concurrency: number;
  accounts: number;
  shots: number;
  timeLimitS: number;
  thinkMs: number;
}

export interface ShrinkRun {
  /** The run failed with the original's signature. */
  reproduced: boolean;
  runDir?: string;
}

export interface ShrinkOptions {
  tries: number;
  keep: number;
  budgetMs: number;
  /**
   * The floors for a configuration: the shortest useful run and the section its faults' stories need depend on which
   * fault kinds are left (a restart needs a section wider than itself; a pause alone does not).
   */
  floors(dims: ShrinkDims): ShrinkFloors;
  /** How many shots the original fired: the ceiling shots are bisected under. */
  originalShots: number;
  /**
   * The fault whose story the original's signature names (null: none). In a run with several fault kinds, the other
   * faults' lost updates often come first and end a rerun (`--stop-on-lost-update`) under another signature, so the
   * original configuration rarely reproduces its own; when it does not recur, this fault alone is tried before giving up.
   */
  storyFault?: FaultName | null;
  now(): number;
  progress(line: string): void;
  /** One run of `dims` — the `candidate`-th configuration tried, its `attempt`-th run. */
  run(dims: ShrinkDims, candidate: number, attempt: number): Promise<ShrinkRun>;
}

export interface CandidateRecord {
  what: string;
  dims: ShrinkDims;
  tries: number;
  reproduced: number;
  accepted: boolean;
  ms: number;
  /** Set when the budget ran out before the candidate was decided. */
  cutByBudget?: boolean;
}

export interface ShrinkResult {
  original: ShrinkDims;
  smallest: ShrinkDims;
  /** The smallest configuration's own runs: reproduced of tries. */
  rate: { k: number; n: number };
  /** Run folders of the smallest configuration's reproducing runs (a bundle is made from the first). */
  reproducingRuns: string[];
  candidates: CandidateRecord[];
  elapsedMs: number;
  /**
   * `budget`: it stopped with dimensions left to try; `not-recurring`: the original failed fewer than `keep` times
   * (and so did its story's fault alone, when that was tried).
   */
  stoppedBy: 'done' | 'budget' | 'not-recurring';
}

class OutOfBudget extends Error {}

export async function shrink(original: ShrinkDims, o: ShrinkOptions): Promise<ShrinkResult> {
  const start = o.now();
  const candidates: CandidateRecord[] = [];
  let current = original;
  let best = { k: 0, n: 0, runs: [] as string[] };
  const attempt = async (what: string, dims: ShrinkDims): Promise<boolean> => {
    const t0 = o.now();
    const rec: CandidateRecord = { what, dims, tries: 0, reproduced: 0, accepted: false, ms: 0 };
    candidates.push(rec);
    const runs: string[] = [];
    while (rec.tries < o.tries && rec.reproduced < o.keep && rec.reproduced + (o.tries - rec.tries) >= o.keep) {
      if (o.now() - start >= o.budgetMs) {
        rec.cutByBudget = true;
        rec.ms = o.now() - t0;
        o.progress(`shrink: ${what}: budget spent after ${rec.reproduced}/${rec.tries}; stopping`);
        throw new OutOfBudget();
      }
      const r = await o.run(dims, candidates.length - 1, rec.tries);
      rec.tries++;
      if (r.reproduced) {
        rec.reproduced++;
        if (r.runDir) runs.push(r.runDir);
      }
    }
    rec.accepted = rec.reproduced >= o.keep;
    rec.ms = o.now() - t0;
    o.progress(
      `shrink: ${what}: ${rec.reproduced}/${rec.tries} reproduced in ${secs(rec.ms)} — ${rec.accepted ? 'kept' : 'not kept'} (${secs(o.now() - start)} of ${secs(o.budgetMs)})`,
    );
    if (rec.accepted) {
      current = dims;
      best = { k: rec.reproduced, n: rec.tries, runs };
    }
    return rec.accepted;
  };
  let stoppedBy: ShrinkResult['stoppedBy'] = 'done';
  try {
    if ((await attempt('the original configuration', original)) || (await narrowToStory(original, o, attempt)))
      await shrinkDimensions(o, () => current, attempt);
    else stoppedBy = 'not-recurring';
  } catch (err) {
    if (!(err instanceof OutOfBudget)) throw err;
    stoppedBy = 'budget';
  }
  return {
    original,
    smallest: current,
    rate: { k: best.k, n: best.n },
    reproducingRuns: best.runs,
    candidates,
    elapsedMs: o.now() - start,
    stoppedBy,
  };
}

type Attempt = (what: string, dims: ShrinkDims) => Promise<boolean>;

/**
 * When the original did not recur: its signature's fault alone, if the original had others beside it — the candidate
 * that keeps the story and drops the faults whose own lost updates ended the reruns first. False when there is none.
 */
async function narrowToStory(original: ShrinkDims, o: ShrinkOptions, attempt: Attempt): Promise<boolean> {
  const only = o.storyFault;
  if (!only || original.faults.length <= 1 || !original.faults.includes(only)) return false;
  return attempt(`faults ${original.faults.join(',')} → ${only} (the signature's story)`, {
    ...original,
    faults: [only],
  });
}

/** Clients, accounts, fault kinds, shots, duration, think: in that order, each from the configuration kept so far. */
async function shrinkDimensions(o: ShrinkOptions, current: () => ShrinkDims, attempt: Attempt): Promise<void> {
  const floor = () => o.floors(current());
  await shrinkNumber(
    'clients',
    current().concurrency,
    floor().concurrency,
    (v) => ({ ...current(), concurrency: v }),
    attempt,
  );
  await shrinkNumber('accounts', current().accounts, floor().accounts, (v) => ({ ...current(), accounts: v }), attempt);
  for (const kind of [...current().faults]) {
    const faults = current().faults;
    if (faults.length <= 1) break;
    await attempt(`faults without ${kind}`, { ...current(), faults: faults.filter((k) => k !== kind) });
  }
  // From here the fault kinds are settled: their floors (the run's length, the section's width) are the kept ones'.
  const shots = current().shots ?? Math.max(floor().shots, o.originalShots);
  await shrinkNumber(
    'shots',
    shots,
    floor().shots,
    (v) => ({ ...current(), shots: v }),
    attempt,
    current().shots === null,
  );
  await shrinkNumber(
    'time limit (s)',
    current().timeLimitS,
    floor().timeLimitS,
    (v) => ({ ...current(), timeLimitS: v }),
    attempt,
  );
  await shrinkNumber('think (ms)', current().thinkMs, floor().thinkMs, (v) => ({ ...current(), thinkMs: v }), attempt);
}

/**
 * One number from `from` (known to reproduce) toward `floor`: the floor first, then halves between the last value
 * that did not reproduce and the smallest that did, until they are within a quarter of each other (a run costs a
 * minute; the last few units are not worth it). `unbounded`: `from` itself was not measured (shots the original did
 * not limit): it is tried too when nothing smaller reproduces.
 */
async function shrinkNumber(
  name: string,
  from: number,
  floor: number,
  dims: (v: number) => ShrinkDims,
  attempt: Attempt,
  unbounded = false,
): Promise<void> {
  if (from <= floor) return;
  if (await attempt(`${name} ${unbounded ? 'unlimited' : from} → ${floor}`, dims(floor))) return;
  let good = from;
  let bad = floor;
  let goodMeasured = !unbounded;
  while (good - bad > Math.max(1, Math.floor(good / 4))) {
    const mid = Math.floor((good + bad) / 2);
    if (await attempt(`${name} ${good} → ${mid}`, dims(mid))) {
      good = mid;
      goodMeasured = true;
    } else bad = mid;
  }
  if (!goodMeasured && good !== floor) await attempt(`${name} unlimited → ${good}`, dims(good));
}

function secs(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${s % 60} s`;
}
