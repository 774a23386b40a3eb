import { faultFacts } from '../faults/catalogue.ts';
import type { CellRun, MatrixCell } from './matrix-cell.ts';

/**
 * What a measured cell's runs prove, in a phrase for the night's table: a counterexample is proof (the run that
 * holds it named by its seed); a safe cell is evidence of how much was survived — the stories that completed (a
 * story fault's hit is a completed story: faults/judging/story.ts), the stale writes a fence refused — never proof
 * of safety; an unknown one shows nothing, and says why (judgeRun's reason). A safe cell is only ever decided by
 * runs whose aimed fault hit (judgeRun makes the others inconclusive), so the counts here are of conclusive runs.
 */
export function cellShows(c: Pick<MatrixCell, 'fault' | 'observed' | 'fencing' | 'runs'>): string {
  const runs = c.runs ?? [];
  const seeds = (rs: readonly CellRun[]) => rs.map((r) => r.seed).join(', ');
  switch (c.observed) {
    case 'lost': {
      const lost = runs.filter((r) => r.seen === 'lost');
      const n = lost.reduce((s, r) => s + r.lostUpdates, 0);
      return `counterexample: ${n} update(s) lost (seed ${seeds(lost)})`;
    }
    case 'invalid':
      return `counterexample: INVALID without a lost update (seed ${seeds(runs.filter((r) => r.seen === 'invalid'))})`;
    case 'safe': {
      const ok = runs.filter((r) => r.conclusive && r.seen === 'safe');
      const fenced =
        c.fencing && ok.some((r) => r.staleWritesRejected > 0)
          ? `, ${ok.reduce((s, r) => s + r.staleWritesRejected, 0)} stale write(s) refused`
          : '';
      if (c.fault === 'none')
        return `no update lost in ${ok.length} run(s) without a fault${fenced}: evidence, not proof`;
      const hits = ok.reduce((s, r) => s + (r.faultHits ?? 0), 0);
      const what = faultFacts(c.fault)?.story ? 'completed stories' : 'hits';
      const survived = runs.some((r) => r.faultHits !== undefined) ? `${hits} ${what} of ${c.fault}` : c.fault;
      return `no update lost in ${ok.length} run(s) through ${survived}${fenced}: evidence, not proof`;
    }
    case 'starved':
    case 'unknown':
    case 'failed': {
      const last = runs.at(-1);
      return `nothing${last?.why ? `: ${last.why}` : ''}`;
    }
    default:
      return 'decided by construction, not run';
  }
}
