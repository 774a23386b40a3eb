import type { MarginCell } from '../margin-cell.ts';
import { predicted } from '../oracle-cell.ts';

/**
 * Curator measures how long it has been SUSPENDED on the wall clock (`System.currentTimeMillis()` in
 * ConnectionStateManager.checkSessionExpiration, research anchors §1.4) and declares LOST once that reaches the
 * session timeout. clock-strobe flips every client's wall clock between +offset and real time every TTL/4, so a
 * SUSPENDED period that spans a flip back measures short by the offset: LOST comes late. No shim work: the strobe
 * exists. Written before the cell's first run (2026-12-06).
 */
export const CURATOR_MARGINS: readonly MarginCell[] = [
  {
    id: 'margin-strobe-partition',
    title: 'clock strobe + partition',
    faults: ['clock-strobe', 'partition'],
    options: { accounts: 2 },
    thinkTtlFraction: 0.05,
    threshold:
      'LOST declared when SUSPENDED time on the wall clock reaches the session timeout: a strobe back by 60 s delays it by up to 60 s',
    cell: predicted(
      'safe',
      "the glue uses InterProcessMutex as Curator's getting-started does and never reads its connection state: a holder writes when its section (0.05 × TTL) ends, whatever Curator says. A partitioned holder's session expires at the server after the session timeout (ZooKeeper times sessions on System.nanoTime, which the strobe does not move), and only then is another client granted — long after the holder wrote. The strobe does make Curator's LOST late, but nothing in the run acts on LOST: no lost update. A holder that stopped writing on LOST (not on SUSPENDED, as the advice says) would be late by up to the offset — what this glue cannot show",
    ),
  },
];
