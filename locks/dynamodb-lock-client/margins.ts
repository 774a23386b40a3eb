import type { MarginCell } from '../margin-cell.ts';
import { predicted } from '../oracle-cell.ts';

/**
 * dynamodb-lock-client heartbeats on the holder's own timer, every heartbeatPeriodMs (0.3 × TTL here, the README's
 * 3e3 of 1e4), each heartbeat a conditional PUT with a new guid; a waiter reads the record, waits the lease it read
 * (TTL) on *its* timer, and takes the record only if the guid is unchanged. A holder whose clocks run at r heartbeats
 * every 0.3 × TTL / r real: above r = 0.3 every waiter's wait of a TTL spans a heartbeat, below it a wait can fall
 * between two, and the waiter steals a live lock. Written before the cells' first run (2026-12-06).
 *
 * Redesigned after their first runs, at the default --pause (the rate lasting at most 3 s): at r = 0.15 one stretched
 * heartbeat gap (4 s real) barely fits in a 3 s window, and 1 of 5 runs (seed 5: 3 whole stories, each "its own
 * refresh kept the key") lost nothing — a cell at the window's edge, not at a clear margin of the rate. Both cells now
 * hold the rate for up to 8 s (`pauseMs`), two heartbeat gaps at r = 0.15; their predictions are unchanged. So
 * measured, 5 runs each (`--lock=dynamodb-lock-client --nemesis=clock-rate-client --pause=8000 --accounts=2
 * --time-limit=20`, seeds 1–5): r = 0.15 (`--think=1400`) INVALID 5 of 5, 3 lost each, 15 of 15 whole stories; r =
 * 0.45 (`--think=2400`) VALID 5 of 5, 10 of 10 whole stories, each held by a heartbeat.
 */
const THRESHOLD =
  "its heartbeat every 0.3 × TTL of its own clock leaves a waiter's TTL-long wait without one below r = 0.3";

export const DYNAMODB_LOCK_CLIENT_MARGINS: readonly MarginCell[] = [
  {
    id: 'margin-heartbeat-x0.15',
    title: "holder's clocks at 0.15, think 0.7 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.15, pauseMs: 8000, accounts: 2 },
    thinkTtlFraction: 0.7,
    threshold: `${THRESHOLD}; r = 0.15 is 0.15 below it`,
    cell: {
      ...predicted(
        'lost',
        "at r = 0.15 the holder heartbeats every 2 × TTL real, and its section (0.7 × TTL of its own time) lasts 4.7 × TTL real: a waiter's wait of one TTL after its read falls between two heartbeats about half the time, finds the guid unchanged and takes the lock (token + 1) while the holder is inside; the holder writes when its section ends — its next heartbeat fails and emits 'error', which only logs: a lost update",
      ),
      revised:
        'lost, as predicted, in 4 of 5 runs of its first design (the rate for at most the default 3 s; `--clock-rate=0.15 --accounts=2 --think=1400 --time-limit=20`, seeds 1–5, 2026-12-06: 1 lost update each in seeds 1–4; seed 5 VALID, its 3 shots each held by a heartbeat inside the window): the cell now holds the rate up to 8 s',
    },
  },
  {
    id: 'margin-heartbeat-x0.45',
    title: "holder's clocks at 0.45, think 1.2 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.45, pauseMs: 8000, accounts: 2 },
    thinkTtlFraction: 1.2,
    threshold: `${THRESHOLD}; r = 0.45 is 0.15 above it`,
    cell: predicted(
      'safe',
      "at r = 0.45 the holder heartbeats every 0.67 × TTL real, so every waiter's wait of a TTL spans a heartbeat that changed the guid: its PUT's condition fails, however long the section (1.2 × TTL of its own time, 2.7 × TTL real — longer than the lease, which only the heartbeats keep)",
    ),
  },
];
