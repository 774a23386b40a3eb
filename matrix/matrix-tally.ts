import type { MatrixCell } from './matrix-cell.ts';

/** A matrix's count: measured cells and how many matched, apart from the cells decided by construction. */
export interface MatrixTally {
  measured: number;
  matched: number;
  /** Measured cells whose harness threw (among the unmatched). */
  failed: number;
  construction: number;
  /** Cells the CLI must refuse (decided by construction) and how many it did refuse. */
  refusals: number;
  refused: number;
  /** Exit 0 of `--lock=all`: every measured cell matched and every refusal was confirmed. */
  allMatched: boolean;
}

export function tally(cells: readonly MatrixCell[]): MatrixTally {
  const measured = cells.filter((c) => c.decided !== 'construction');
  const construction = cells.filter((c) => c.decided === 'construction');
  const refusals = construction.filter((c) => c.expected === 'refuse');
  return {
    measured: measured.length,
    matched: measured.filter((c) => c.matched).length,
    failed: measured.filter((c) => c.observed === 'failed').length,
    construction: construction.length,
    refusals: refusals.length,
    refused: refusals.filter((c) => c.observed === 'refuse').length,
    allMatched: cells.every((c) => c.matched),
  };
}

/** The closing line of `--lock=all` and the matrix page's headline: "22 measured: 22 matched; 13 by construction …". */
export function tallyLine(t: MatrixTally): string {
  const missed = t.measured - t.matched;
  const measured = `${t.measured} measured: ${t.matched} matched${missed ? `, ${missed} did not${t.failed ? ` (${t.failed} failed)` : ''}` : ''}`;
  const refusals = t.refusals ? ` (${t.refused} of ${t.refusals} refusals confirmed by the CLI)` : '';
  return `${measured}; ${t.construction} by construction, not run${refusals}`;
}
