import { CLIENT_EXITED } from '../../history/client-exit.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import { type Judge } from '../judging/fault-shot.ts';
import { done, missing, otherGrant, secs } from '../judging/story-steps.ts';
import { struck, tell } from '../judging/story.ts';

/** kill-holder's story (faults/kill-holder/facts.ts): the holder killed in its section, its death seen, the lock freed by expiry. */
export const judge: Judge<'kill-holder'> = (shot) => {
  let a!: AimedShot;
  return tell(shot.start, 'kill-holder', {
    killed: struck(shot, shot.ev.start.aim, (x) => (a = x)),
    died: () => {
      const death = a.own.find((op) => op.type === 'info' && op.error === CLIENT_EXITED && op.time >= a.strikeNs);
      return death
        ? done(`${a.who} died (#${death.index})`)
        : missing(`${a.who} has no client exit after the kill: it did not die there`);
    },
    freed: () => {
      const g = otherGrant(shot.history, a.aim.process, a.aim.account, a.strikeNs, Infinity);
      return g
        ? done(
            `p${String(g.process)} acquired account ${a.aim.account} (#${g.index}) ${secs((g.time - a.strikeNs) / 1e6)} after the kill`,
          )
        : missing(`no other client acquired account ${a.aim.account} after the kill before the history ended`);
    },
  });
};
