import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { done, missing, type StepFinding } from './story-steps.ts';

/**
 * The "unacknowledged" step of a fault that dropped the reply to a holder's release (reply-loss on Redis,
 * reply-loss-delete on ZooKeeper, reply-loss-etcd-release): the release the fault recorded, by its invoke's time, did
 * not complete ok — it failed, timed out, never answered, or answered `released: false` (a retried release that found
 * the key already gone, or Redlock's recipe reading a node that did not answer). A release that completed ok was heard.
 */
export function releaseUnheard(
  shot: { readonly history: History; readonly byProcess: ReadonlyMap<number, readonly Op[]> },
  holder: number,
  releaseTime: number | undefined,
): StepFinding {
  const who = `p${holder}`;
  const release = (shot.byProcess.get(holder) ?? []).find(
    (op) => op.f === 'release' && op.type === 'invoke' && op.time === releaseTime,
  );
  if (!release) return missing(`${who}'s release is not in the history`);
  const completion = shot.history.completionOf(release);
  const released = (completion?.value as { released?: unknown } | null)?.released;
  if (completion?.type === 'ok' && released === false)
    return done(`${who}'s release #${completion.index} reported the lock not released`);
  if (completion?.type === 'ok')
    return missing(`${who}'s release #${completion.index} completed ok: the client heard an answer`);
  const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
  return done(`${who}'s release #${release.index} ended ${how}`);
}
