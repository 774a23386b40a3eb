import type { LostReplyCell } from '../lost-reply-cell.ts';

/**
 * The idempotent class (research anchors §2.2 (c)): written with the scenario, 2026-12-06, before its replay.
 */
export const CURATOR_LOST_REPLIES: readonly LostReplyCell[] = [
  {
    id: 'lost-reply-create',
    title: "lock node's create reply lost (idempotent)",
    scenario: 'scenarios/idempotent-create.json',
    expect: 'clean',
    why: "InterProcessMutex creates its node in protection mode (`_c_<guid>-lock-`): on the connection loss that follows the dropped reply, Curator's retry first looks for a child carrying its GUID (CreateBackgroundModeACLable's documented recovery), finds the node the lost create made on the same session and takes it. One node, one grant: no orphan, no double ownership, and B is granted when A releases",
    measured:
      "clean 10 of 10 (Wilson 95 %: 72–100 %): Curator's protected create found its own `_c_<guid>` node, one grant, no lost-replies finding (`npm run jepsen -- replay scenarios/idempotent-create.json --runs=10`, 2026-12-06)",
  },
];
