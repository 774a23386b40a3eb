import type { LostReplyCell } from '../lost-reply-cell.ts';

/**
 * The idempotent class (research anchors §2.2 (c)) in fencepost's own recipe: written 2026-12-06, before the cell's
 * first run with this lock.
 */
export const ZOOKEEPER_LOST_REPLIES: readonly LostReplyCell[] = [
  {
    id: 'lost-reply-create',
    title: "lock node's create reply lost (idempotent)",
    scenario: 'scenarios/idempotent-create.json',
    expect: 'clean',
    why: 'the recipe names its node with a per-client prefix and, after a connection loss in its create, looks for a child with that prefix on its session before creating again (locks/zookeeper/zookeeper.ts): the node the lost create made is found and taken. One node, one grant; B is granted when A releases',
    measured:
      'clean 10 of 10 (Wilson 95 %: 72–100 %): one node, one grant, no lost-replies finding (`npm run jepsen -- replay scenarios/idempotent-create.json --lock=zookeeper --runs=10`, 2026-12-06)',
  },
];
