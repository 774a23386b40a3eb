import { faultFacts } from '../faults/catalogue.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { brokenPromises } from '../checkers/promise/check-promise.ts';
import { lostUpdateTallyText } from '../checkers/lost-update-faults.ts';
import type { LockFinding } from '../locks/lock-finding.ts';

/**
 * The "what to do" line under a run's verdict, in its summary, its `--json` and its report's header: the decision the
 * user came for, not the next debugging step (issue 50). It fits the verdict — an INVALID with lost updates and no
 * token says to fence the write; one where the lock broke its own promise says the lock failed; a VALID says what
 * one run does and does not show; an UNKNOWN what to change to get a verdict — and ends with the lock's own advice,
 * the same words docs/findings.md gives it. Pure: the results and the lock's facts in, the line out.
 */
export interface NextStep {
  /** One line of words, no label: the summary prints it after `what to do:`. */
  readonly text: string;
  /** Where the lock's story is, relative to the repository: `docs/findings.md#…`, `docs/locks.md`, `docs/your-lock.md`. */
  readonly doc: string;
}

/** The line as a terminal shows it: the words, then the page ("… See docs/locks.md."). */
export function nextStepWords(step: NextStep): string {
  return `${step.text} See ${step.doc}.`;
}

/** The reading guide every report links, relative to the repository. */
export const READING_GUIDE = 'docs/reading-results.md';

/**
 * Where the report's links point: the docs as published with the project (package.json's repository), since a
 * report is opened from a results folder, served by `serve`, or attached to a CI run, far from any checkout.
 */
export const DOCS_BASE = 'https://github.com/fencepost/fencepost/blob/main/';

export type NextStepResults = Pick<
  RunResults,
  'valid' | 'lostUpdates' | 'lostUpdatesByFault' | 'unknownReasons' | 'staleWritesRejected'
> & { readonly checkers?: Pick<Partial<RunResults['checkers']>, 'promise'> };

export function nextStep(
  r: NextStepResults,
  lock: LockFinding,
  run: { readonly fencing: boolean; readonly faults: readonly string[] },
): NextStep {
  const doc = `docs/${lock.doc}`;
  const first =
    r.valid === false ? invalidText(r, lock, run.fencing) : r.valid === true ? validText(r, run) : unknownText(r);
  // The baseline's own advice would be about another lock; every other lock's words close the line.
  const advice = lock.advice && lock.token !== 'no-lock' ? ` With ${lock.lock}: ${lock.advice}` : '';
  return { text: `${first}${advice}`, doc };
}

/** " under restart-empty 3 · clock 1": the faults the lost updates happened under, or nothing. */
function under(r: NextStepResults): string {
  const text = r.lostUpdatesByFault ? lostUpdateTallyText(r.lostUpdatesByFault) : '';
  return text ? ` (${text})` : '';
}

const FENCE_IT =
  'make the place you write refuse a stale writer (a version column, a conditional write on a version or ETag), or take a lock with a token and check it there (etcd or ZooKeeper with `--fencing`), or keep the lock in Postgres beside the data';

/**
 * The holder the faults that lost updates made, in their own words (FaultFacts.holderWas: paused past its lease,
 * slowed past it by its own clock) when they all say the same; else one that lost its lock without knowing — what
 * every fault's loss has in common.
 */
function pastItsLease(r: NextStepResults): string {
  const words = new Set(Object.keys(r.lostUpdatesByFault ?? {}).map((f) => faultFacts(f)?.holderWas));
  const [only] = words;
  return words.size === 1 && only !== undefined ? only : 'that lost its lock without knowing';
}

function invalidText(r: NextStepResults, lock: LockFinding, fencing: boolean): string {
  const broken = brokenPromises(r.checkers?.promise).length;
  if (broken > 0)
    return `the lock itself failed: it granted a lock inside a lease it had promised another holder (${broken} broken ${broken === 1 ? 'promise' : 'promises'}${r.lostUpdates ? `; ${r.lostUpdates} lost${under(r)}` : ''}), which nothing in your code can prevent — fence the write, or choose a lock that keeps its promise under these faults (docs/choosing.md).`;
  if (r.lostUpdates === 0)
    return 'a checker said INVALID without a lost update: its `checker` line names it, and docs/checkers.md says what it checks — read that before trusting this lock.';
  if (lock.token === 'no-lock')
    return `--lock=none takes no lock: these ${r.lostUpdates} lost updates are the baseline every lock is measured against — pick a lock (docs/choosing.md).`;
  if (fencing || lock.token === 'own-fence')
    return `updates were lost although the run was fenced${under(r)}: the tokens did not order the writers (the \`token:\` lines say where) — a token that goes back after a restart or a failover is no fence; take it from a store that keeps it (etcd, ZooKeeper, the data's own version column).`;
  const stops = `stops a holder ${pastItsLease(r)} from writing${under(r)}`;
  if (lock.token === 'none')
    // The lock's own advice says how to fence it, where it has some: the generic ways would say it twice.
    return `fence the write: ${lock.lock} has no fencing token, so no setting of it ${stops}${lock.advice ? '.' : ` — ${FENCE_IT}.`}`;
  if (lock.token === 'token')
    return `fence the write: a holder ${pastItsLease(r)} still writes${under(r)}, and ${lock.lock} hands out a fencing token — check it where you write (\`WHERE token < $1\`) and rerun with \`--fencing\` to see the stale writes refused.`;
  return `fence the write: no lock alone ${stops} — if your lock hands out a token, check it where you write and rerun with \`--fencing\`; if not, ${FENCE_IT}.`;
}

function validText(r: NextStepResults, run: { fencing: boolean; faults: readonly string[] }): string {
  const refused =
    run.fencing && r.staleWritesRejected > 0
      ? `; the fence refused ${r.staleWritesRejected} stale ${r.staleWritesRejected === 1 ? 'write' : 'writes'}`
      : '';
  if (run.faults.length === 0)
    return `nothing was lost without faults${refused}: that shows the lock keeps clients apart, nothing about a paused holder, a restart or a clock jump — add \`--nemesis=\` (docs/faults.md).`;
  return `nothing was lost under ${run.faults.join(', ')} in this run${refused}: one run is a sample, not a proof — rerun with other seeds (\`--seed\`), longer (\`--time-limit\`), or other faults; docs/matrix.md shows every lock under each fault.`;
}

/** What to change for a verdict, from the first reason (the most important): each reason's kind has its own remedy. */
function unknownText(r: NextStepResults): string {
  const why = r.unknownReasons[0] ?? '';
  const lead = 'UNKNOWN is not a pass:';
  if (/^(no|too little) progress/.test(why))
    return `${lead} the clients committed too few writes — check the servers (\`npm run jepsen -- doctor\`), the TTL (\`--ttl\`) and the clients' logs (logs/client-<n>.log).`;
  if (why.startsWith('no concurrency'))
    return `${lead} only one client wrote — give the lock contention: more clients (\`--concurrency\`) on fewer accounts (\`--accounts\`).`;
  if (why.startsWith('clients kept dying'))
    return `${lead} the lock's client processes kept exiting — read logs/client-<n>.log in the run dir.`;
  if (why.includes('the run left it out'))
    return `${lead} a fault could not run here — drop it from \`--nemesis\` (the reason above says why).`;
  if (/never fired|never completed|but never/.test(why))
    return `${lead} a fault never acted on the lock — run longer (\`--time-limit\`) or fire more often (\`--nemesis-interval\`); a story that stops short may need a wider critical section (\`--think\`).`;
  if (why)
    return `${lead} the first reason above says what is missing; docs/reading-results.md says what makes a run UNKNOWN.`;
  return `${lead} a checker ran out of time or memory — a shorter run (\`--time-limit\`) gives it less history to check.`;
}
