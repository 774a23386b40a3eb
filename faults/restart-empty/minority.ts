import type { FaultAim } from '../fault-aim.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import type { ShotRecords } from '../judging/fault-shot.ts';
import { accountOf, at, byOtherClient, held, holderWrite, missing, type StepFinding } from '../judging/story-steps.ts';

/**
 * restart-empty's minority story, a script's only: its step named fewer of the nodes holding the key than break a
 * correct majority (`restart-empty A on redis[0,1]` while A holds all five). A lock that counts a minority as a quorum
 * then lets another client in on what is left (examples/broken/redlock-minority.ts); a correct one keeps it out, and
 * the history can show that it did: the other client asked once the struck nodes answered again, empty — so the
 * strike's effect stood and they were free to take — and was not granted while the holder wrote.
 *
 * Only a shot whose record names the script's servers (`named`, never on a free run's shot) takes this story: a free
 * run strikes as many as break the lock, and there a client kept waiting stays no story (down or slow, not shown to
 * hold: faults/judging/story.ts `granted`).
 */

/**
 * A scripted minority strike: its aim as the struck step confirms it (without the majority it did not break), and
 * the words that say so; else null.
 */
export function scriptedMinority(shot: ShotRecords<'restart-empty'>): { aim: FaultAim; more: string } | null {
  const p = shot.ev.start;
  const aim = p.aim;
  const struck = aim?.struck?.length ?? 0;
  if (!aim || p.named === undefined || aim.needed === undefined || struck === 0 || struck >= aim.needed) return null;
  const { needed, ...rest } = aim;
  return {
    aim: rest,
    more: `; a minority named by the script: ${struck} of the ${needed} a correct majority lock needs broken`,
  };
}

/**
 * The minority story's `granted` when no other client was granted: held when one asked after the struck nodes
 * answered again (the end record) and before the holder's write, and was refused or still waiting when that write
 * completed; missing otherwise (nobody asked in that window, or the answer is unknown).
 */
export function keptOut(shot: ShotRecords<'restart-empty'>, a: AimedShot): StepFinding {
  const { end, history: h } = shot;
  const nodes = a.aim.struck?.join(', ') ?? 'the struck nodes';
  if (!end) return missing(`the history ended with ${nodes} still down`);
  const write = holderWrite(h, a.own, a.read);
  if (!write?.completion)
    return missing(`${a.who}'s write never completed: nothing shows another client kept out while it held the lock`);
  const { process: holder, account } = a.aim;
  const asked = h.ops.find(
    (op) =>
      op.f === 'acquire' &&
      op.type === 'invoke' &&
      byOtherClient(op, holder) &&
      accountOf(op) === account &&
      op.time > end.time &&
      op.time < write.invoke.time,
  );
  if (!asked)
    return missing(
      `no other client asked for account ${account} after ${nodes} answered again and before ${a.who}'s write`,
    );
  const who = `p${String(asked.process)}`;
  const answer = h.completionOf(asked);
  const done = write.completion.time;
  if (answer && answer.time <= done && answer.type !== 'fail')
    return missing(
      `${who}'s acquire #${asked.index} ended ${answer.type} at ${at(answer.time)}, before ${a.who}'s write completed: not kept out`,
    );
  const how = answer?.type === 'fail' ? `refused (#${answer.index})` : `not granted by ${at(done)}`;
  return held(
    `${who} asked for account ${account} (#${asked.index}) at ${at(asked.time)}, after ${nodes} answered again empty, and was ${how}, when ${a.who}'s write #${write.invoke.index} completed: the lock kept it out`,
  );
}
