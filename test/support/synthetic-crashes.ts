import type { Op } from '../../history/op.ts';
import { seededRandom } from '../../locks/strategy.ts';

export interface CrashedRegisterOptions {
  /** Client ops (each an invoke and a completion). */
  ops: number;
  processes: number;
  /** Chance that a write crashes (`info`): it lands at some later moment with probability `landRate`, or never. */
  crashRate: number;
  landRate?: number;
  /** Chance that an op is a read (else a write of a value never written before). */
  readRate?: number;
  seed?: number;
  /** Append a read of a value nobody wrote, after everything: the history is then not linearizable. */
  invalid?: boolean;
}

export interface CrashedRegisterHistory {
  history: Op[];
  crashed: number;
  /** Crashed writes that landed (their value may be read later). */
  landed: number;
}

/**
 * A register history with many crashed writes, for the checker benchmark: the shape a partition or a killed
 * client leaves behind. Each process does write(unique value) / read back to back; each op takes effect at a
 * random point inside its interval, except a crashed write, which takes effect at a random later moment (possibly
 * long after its client gave up) or never. Reads return the value the register held at their point.
 *
 * Every crashed write stays placeable forever in the linearizability search, so without pruning the number of
 * configurations doubles with each one: with `invalid`, the search must rule them all out. Deterministic per seed.
 */
export function generateCrashedRegisterHistory(opts: CrashedRegisterOptions): CrashedRegisterHistory {
  const random = seededRandom(opts.seed ?? 1);
  const landRate = opts.landRate ?? 0.5;
  const readRate = opts.readRate ?? 0.5;
  type Event = {
    t: number;
    order: number;
    kind: 'invoke' | 'ok' | 'info' | 'apply';
    process: number;
    f: string;
    value: unknown;
    op: number;
  };
  const events: Event[] = [];
  const readValue = new Map<number, unknown>();
  const clock = Array.from({ length: opts.processes }, () => random() * 10);
  const procId = Array.from({ length: opts.processes }, (_, p) => p);
  let nextValue = 1;
  let crashed = 0;
  let landed = 0;
  let order = 0;
  const horizon = (opts.ops / opts.processes) * 12;
  for (let i = 0; i < opts.ops; i++) {
    const p = i % opts.processes;
    const start = clock[p] + random() * 2;
    const end = start + 1 + random() * 9;
    clock[p] = end;
    const isRead = random() < readRate;
    const f = isRead ? 'read' : 'write';
    const value = isRead ? null : nextValue++;
    events.push({ t: start, order: order++, kind: 'invoke', process: procId[p], f, value, op: i });
    if (!isRead && random() < opts.crashRate) {
      crashed++;
      events.push({ t: end, order: order++, kind: 'info', process: procId[p], f, value, op: i });
      if (random() < landRate) {
        landed++;
        events.push({
          t: start + random() * (horizon - start + 20),
          order: order++,
          kind: 'apply',
          process: procId[p],
          f,
          value,
          op: i,
        });
      }
      procId[p] += opts.processes; // Jepsen's rule: after an info the client continues as a new process
      continue;
    }
    events.push({
      t: start + random() * (end - start),
      order: order++,
      kind: 'apply',
      process: procId[p],
      f,
      value,
      op: i,
    });
    events.push({ t: end, order: order++, kind: 'ok', process: procId[p], f, value, op: i });
  }
  events.sort((a, b) => a.t - b.t || a.order - b.order);
  let register: unknown = 0;
  for (const e of events) {
    if (e.kind !== 'apply') continue;
    if (e.f === 'write') register = e.value;
    else readValue.set(e.op, register);
  }
  const history: Op[] = [];
  for (const e of events) {
    if (e.kind === 'apply') continue;
    const value = e.f === 'read' && e.kind === 'ok' ? readValue.get(e.op) : e.value;
    history.push({
      index: history.length,
      time: Math.round(e.t * 1e6),
      process: e.process,
      type: e.kind,
      f: e.f,
      value,
      ...(e.kind === 'info' ? { error: 'timeout' } : {}),
    });
  }
  if (opts.invalid) {
    const t = history.length > 0 ? history[history.length - 1].time : 0;
    const p = Math.max(...procId) + 1;
    history.push({ index: history.length, time: t + 1, process: p, type: 'invoke', f: 'read', value: null });
    history.push({ index: history.length, time: t + 2, process: p, type: 'ok', f: 'read', value: -1 });
  }
  return { history, crashed, landed };
}
