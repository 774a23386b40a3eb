import type { LostReplyCell } from '../lost-reply-cell.ts';

/**
 * The self-blocking class (research anchors §2.2 (a)): written with the scenario, 2026-12-06, before its replay.
 */
export const REDIS_LOST_REPLIES: readonly LostReplyCell[] = [
  {
    id: 'lost-reply-acquire',
    title: "acquire's reply lost (self-blocking)",
    scenario: 'scenarios/self-blocking.json',
    expect: { checker: 'lost-replies', anomaly: 'orphaned-lock' },
    why: "the recipe's SET NX took the key and its reply was dropped: ioredis times out after 500 ms, the client loop drops its connection and its next SET NX — same owner value — finds the key held and waits until the acquire gives up. Nobody believes they hold it, and B is granted only when the key's TTL runs out: an orphan of about one TTL, within the TTL plus A's retry budget (a lease's expected cost), the verdict VALID",
    measured:
      "shown 10 of 10 (Wilson 95 %: 72–100 %): each an orphaned lock of 2.0 s, TTL 2.0 s, within the TTL plus A's retry budget; VALID (`npm run jepsen -- replay scenarios/self-blocking.json --runs=10`, 2026-12-06)",
  },
];
