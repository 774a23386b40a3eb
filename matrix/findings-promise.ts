import { promiseText } from './cell-promise.ts';
import type { MatrixCell } from './matrix-cell.ts';

/**
 * docs/findings.md's word on whose fault a library's failures were: of the cells where it lost updates or was found
 * INVALID, which were its own broken promises (it granted inside a lease it had promised: no fence can be trusted to
 * save the data, the library is wrong) and which were a holder outliving its lease (what fencing is for). From each
 * cell's `promise` (cell-promise.ts); a cell from a matrix stored before the promise checker is "not measured yet".
 */
export interface TitledCell {
  title: string;
  cell: MatrixCell;
}

const failed = (c: MatrixCell) => c.observed === 'lost' || c.observed === 'invalid';

/** The column's words for one cell: `2 broken`, `unknown: why`, `not measured yet` (a stored cell without the count). */
export function promiseColumn(c: MatrixCell | undefined): string {
  if (!c) return 'not measured yet';
  return c.promise ? promiseText(c.promise) : 'not measured yet';
}

/** One sentence per library, over its measured cells in the page's order. */
export function promiseSentence(cells: readonly TitledCell[]): string {
  const failures = cells.filter((t) => failed(t.cell));
  const list = (ts: readonly TitledCell[]) => ts.map((t) => t.title).join(', ');
  if (cells.length === 0) return '**Its own broken promises:** not measured yet (no stored run).';
  if (cells.every((t) => !t.cell.promise))
    return '**Its own broken promises:** not measured yet (the stored runs predate the promise checker).';
  // A promise broken where no update was lost is still the library's bug: the data was safe by luck or a fence.
  const brokeOutside = cells.filter((t) => !failed(t.cell) && (t.cell.promise?.broken ?? 0) > 0);
  const outside = brokeOutside.length
    ? ` It also broke its promise without losing an update under ${list(brokeOutside)}.`
    : '';
  if (failures.length === 0)
    return brokeOutside.length
      ? `**Its own broken promises:** no failures, yet it broke its promise under ${list(brokeOutside)} (no update was lost: luck or a fence).`
      : `**Its own broken promises:** none, and no failures to blame${unmeasuredIn(cells)}.`;
  const own = failures.filter((t) => t.cell.promise?.known && t.cell.promise.broken > 0);
  // A holder outlived its lease only where an overlap was classified so; a failure whose overlaps were all unknown
  // (or none was classified) says unknown, never the holder's doing by default.
  const holder = failures.filter(
    (t) => t.cell.promise?.known && t.cell.promise.broken === 0 && t.cell.promise.outlived > 0,
  );
  const unknown = failures.filter(
    (t) => t.cell.promise && (!t.cell.promise.known || (t.cell.promise.broken === 0 && t.cell.promise.outlived === 0)),
  );
  const unmeasured = failures.filter((t) => !t.cell.promise);
  const parts = [
    own.length ? `its own broken promises under ${list(own)}` : 'none of them its own broken promise',
    ...(holder.length ? [`a holder that outlived its lease (no promise broken) under ${list(holder)}`] : []),
    ...(unknown.length
      ? [`whose fault is unknown under ${list(unknown)} (${unknownWhy(unknown[0].cell.promise!)})`]
      : []),
    ...(unmeasured.length ? [`not measured yet under ${list(unmeasured)}`] : []),
  ];
  return `**Its own broken promises:** of its failures, ${parts.join('; ')}.${outside}`;
}

/** `` (not measured yet under X, Y)`` for the cells a stored matrix has no count for; empty when every cell has one. */
function unmeasuredIn(cells: readonly TitledCell[]): string {
  const missing = cells.filter((t) => !t.cell.promise);
  return missing.length ? ` (not measured yet under ${missing.map((t) => t.title).join(', ')})` : '';
}

/** Why a failed cell's fault is unknown: its own reason, else whether no lease was known or its overlaps were. */
function unknownWhy(p: NonNullable<MatrixCell['promise']>): string {
  if (p.why) return p.why;
  if (!p.known) return 'no lease known';
  return p.unknown ? 'its overlaps could not be told apart' : 'no overlap classified';
}
