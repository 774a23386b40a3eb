import type { OpType, ProcessId } from '../history/op.ts';
import { clientProcessOf } from '../history/process-role.ts';
import { quantiles } from '../checkers/op-stats.ts';

/** What the count needs of an op: who, what outcome, when (ns, on one monotonic clock); `f` for latencies. */
export interface CountedOp {
  process: ProcessId;
  type: OpType;
  time: number;
  f?: string;
}

/** Ok client ops a second over a window in which every client slot was running. */
export interface ClientPhaseRate {
  okPerS: number;
  ok: number;
  /** The window: from the first op of the slot that started last, for `windowS` or to the last client op. */
  fromNs: number;
  toNs: number;
  /** toNs − fromNs, in s: less than the `windowS` asked for when the ops ran out first (the figure says so). */
  coveredS: number;
  /** Slots that issued an op at all; fewer than `concurrency` means the window is not "every client running". */
  slotsStarted: number;
}

/**
 * One count for both sides of `bench throughput`, the run's history and the bare clients' ops: ok client ops
 * (watchdog renewals included, harness and nemesis ops not) completed in [from, from + windowS], where `from` is
 * the first op of the slot that started last. Before it some clients are still forking, loading and connecting (a
 * second and more for 16 clients on 2 cores) and a run's first seconds would count that ramp as the harness's
 * slowness; after it every slot is at work. A client process id maps to its slot as `process mod concurrency` (a
 * restarted client continues past its predecessor's ids: `slot + concurrency × generation`). When the ops end
 * before the window does, the window ends at the last client op and `coveredS` says how long it was.
 */
export function clientPhaseRate(ops: readonly CountedOp[], concurrency: number, windowS: number): ClientPhaseRate {
  const firstOfSlot = new Map<number, number>();
  let last = -Infinity;
  for (const o of ops) {
    const p = clientProcessOf(o.process);
    if (p === null) continue;
    const slot = p % concurrency;
    // A loop, not Math.min/max(...spread): 10⁵ ops overflow the stack.
    if (!firstOfSlot.has(slot) || o.time < firstOfSlot.get(slot)!) firstOfSlot.set(slot, o.time);
    if (o.time > last) last = o.time;
  }
  if (firstOfSlot.size === 0) return { okPerS: 0, ok: 0, fromNs: 0, toNs: 0, coveredS: 0, slotsStarted: 0 };
  let from = -Infinity;
  for (const t of firstOfSlot.values()) if (t > from) from = t;
  const to = Math.min(from + windowS * 1e9, last);
  let ok = 0;
  for (const o of ops)
    if (o.type === 'ok' && clientProcessOf(o.process) !== null && o.time >= from && o.time <= to) ok++;
  const coveredS = (to - from) / 1e9;
  return {
    okPerS: coveredS > 0 ? ok / coveredS : 0,
    ok,
    fromNs: from,
    toNs: to,
    coveredS,
    slotsStarted: firstOfSlot.size,
  };
}

/**
 * The p50, in ms, of invoke → ok of `f` (each completion paired with its process's open invoke), over the ok ops
 * `clientPhaseRate` counted (completed in [fromNs, toNs]); null when there is none. The same latency on both sides
 * of a row: what a recorded acquire costs beyond the same client's without the harness.
 */
export function okLatencyP50Ms(ops: readonly CountedOp[], f: string, fromNs: number, toNs: number): number | null {
  const open = new Map<ProcessId, number>();
  const ms: number[] = [];
  for (const o of ops) {
    if (o.f !== f) continue;
    if (o.type === 'invoke') open.set(o.process, o.time);
    else {
      const at = open.get(o.process);
      open.delete(o.process);
      if (o.type === 'ok' && at !== undefined && o.time >= fromNs && o.time <= toNs) ms.push((o.time - at) / 1e6);
    }
  }
  return ms.length ? quantiles(ms).p50 : null;
}
