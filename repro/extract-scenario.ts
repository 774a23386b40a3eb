import type { Op } from '../history/op.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { RunResults } from '../checkers/run-results.ts';
import type { FailureSignature } from '../checkers/failure-signature.ts';
import {
  anomaliesOf,
  anomalyProcesses,
  shotIndex,
  tellingShot,
  type Anomaly,
  type ShotIndex,
} from '../checkers/failure-signature.ts';
import { aimOf } from '../faults/evidence.ts';
import { faultFacts } from '../faults/catalogue.ts';
import type { RunConfig } from '../store/run-config.ts';
import { SCENARIO_FORMAT, SCENARIO_VERSION } from '../scenario/scenario-file.ts';

/**
 * A failing run's window turned into a scenario: the two clients of the anomaly named A (the holder the fault
 * struck) and B (the other writer), the story the fault's catalogue row tells scripted step by step with them — the
 * same steps as the shipped scenario for that fault — and the run's options that change how the lock and the fault
 * behave. Without a fault story (a lock broken with no fault at all), the clients' own ops in the window, in the
 * order they completed. Pure.
 */
export interface Extracted {
  /** The scenario file's content. */
  scenario: Record<string, unknown>;
  /** Ops of the failing window: from the first involved acquire to the last involved write, every process. */
  window: Op[];
  /** History process → its name in the scenario. */
  names: Map<number, string>;
  /** `write #7 by p3 (A) erased by write #9 by p1 (B)`. */
  description: string;
  /** The story shot's steps, in the catalogue's words with the history's evidence; empty without a story. */
  story: { says: string; evidence: string }[];
}

const WINDOW_MAX_OPS = 2000;

export function extractScenario(
  ops: readonly Op[],
  results: RunResults,
  config: Partial<RunConfig>,
  signature: FailureSignature,
  lockRef: string,
): Extracted | string {
  const shots = shotIndex(ops);
  // Every helper below reads the run's first anomaly: make it the one the signature's story tells.
  results = storyAnomalyFirst(results, signature.story, shots);
  const first = anomaliesOf(results)[0];
  if (!first) return `a ${signature.checker} failure names no two clients to script (lost updates and overlaps do)`;
  const pair = anomalyProcesses(first);
  const shot = signature.story ? tellingShot(results, signature.story, shots, first) : undefined;
  // A is the holder the fault struck; without a story, the client whose section began first.
  const holder = shot ? shots.holders.get(shot.index)! : firstToAct(ops, results, pair);
  const other = pair.find((p) => p !== holder) ?? pair[1];
  const names = new Map([
    [holder, 'A'],
    [other, 'B'],
  ]);
  const start = shot ? ops.find((o) => o.index === shot.index) : undefined;
  const steps =
    signature.story && shot && start ? storySteps(signature.story, start, config) : windowSteps(ops, results, names);
  const window = failingWindow(ops, results, pair);
  return {
    scenario: {
      fencepost: SCENARIO_FORMAT,
      version: SCENARIO_VERSION,
      name: `${signature.story ?? 'no-fault'}-${signature.anomaly}`,
      shows: `Extracted by \`repro\` from a failing run: ${describeAnomaly(results, names)}${signature.story ? `, after ${signature.story}'s story` : ''}. A is p${holder} of the run, B is p${other}.`,
      lock: lockRef,
      clients: ['A', 'B'],
      options: scenarioOptions(config),
      steps,
      expect: signature,
    },
    window,
    names,
    description: describeAnomaly(results, names),
    story: shot?.story?.map((s) => ({ says: s.id, evidence: s.evidence })) ?? [],
  };
}

/**
 * The run's results with the anomaly the signature's story tells first: the first lost update (or overlap) that a whole
 * story of that fault tells — the same event, by the ops the story cites (failure-signature.ts `tellingShot`). A run
 * with several faults may have lost its first update under another fault; scripting that pair's steps dropped the
 * story, and pairing it with a story told by the same clients 34 s later made the bundle tell two events (issue 50).
 * Unchanged when there is no story or no such anomaly.
 */
function storyAnomalyFirst(r: RunResults, fault: FaultName | null, shots: ShotIndex): RunResults {
  if (!fault) return r;
  const told = (a: Anomaly) => tellingShot(r, fault, shots, a) !== undefined;
  const first = <T>(list: readonly T[] | undefined, anomaly: (x: T) => Anomaly): T[] | undefined => {
    const i = (list ?? []).findIndex((x) => told(anomaly(x)));
    return i > 0 ? [list![i], ...list!.filter((_, j) => j !== i)] : undefined;
  };
  const lost = first(r.lostUpdateDetails, (l) => ({ lost: l }));
  if (lost) return { ...r, lostUpdateDetails: lost };
  if (r.lostUpdateDetails?.length) return r;
  const overlaps = first(r.overlapDetails, (o) => ({ overlap: o }));
  return overlaps ? { ...r, overlapDetails: overlaps } : r;
}

function firstToAct(ops: readonly Op[], r: RunResults, pair: [number, number]): number {
  const [from] = windowSpan(ops, r, pair);
  const first = ops.find((o) => o.time >= from && pair.includes(o.process as number));
  return (first?.process as number | undefined) ?? pair[0];
}

/** The steps of the fault's story with A the holder, B the other client (its facts' `script`); else `<fault> A`. */
function storySteps(fault: FaultName, start: Op, config: Partial<RunConfig>): string[] {
  const struck = aimOf(start)?.struck;
  const on = Array.isArray(struck) && struck.length ? ` on ${struck.map(String).join(',')}` : '';
  const story = faultFacts(fault)?.script?.story;
  return story
    ? [...story({ on, watchdog: Boolean(config.watchdog), clockOffsetS: config.clockOffsetS })]
    : [`${fault} A`];
}

/**
 * Without a fault story: the named clients' ops from the sections that made the anomaly, each as a step in the order
 * it completed — the interleaving the run had, which the script then fixes.
 */
function windowSteps(ops: readonly Op[], r: RunResults, names: ReadonlyMap<number, string>): string[] {
  const [from, to] = windowSpan(ops, r, [...names.keys()]);
  const steps: { at: number; text: string }[] = [];
  for (const op of ops) {
    if (typeof op.process !== 'number' || !names.has(op.process) || op.type === 'invoke') continue;
    if (!['acquire', 'read', 'write', 'release'].includes(op.f) || op.time < from || op.time > to) continue;
    steps.push({ at: op.time, text: `${names.get(op.process)} ${op.f}` });
  }
  return steps.map((s) => s.text);
}

/** From the section-opening acquire of the earlier of the pair's writes to the completion of the later one. */
function windowSpan(ops: readonly Op[], r: RunResults, pair: readonly number[]): [number, number] {
  const l = r.lostUpdateDetails?.[0];
  const idx = l ? [l.lostOpIndex, l.overwrittenByOpIndex].filter((i): i is number => i !== undefined) : [];
  const writes = idx.map((i) => ops.find((o) => o.index === i)).filter((o): o is Op => o !== undefined);
  const o = r.overlapDetails?.[0];
  const end = writes.length
    ? Math.max(...writes.map((w) => w.time))
    : o
      ? Math.max(o.a.releasedAt, o.b.releasedAt)
      : Infinity;
  const acquires = ops.filter(
    (op) => op.f === 'acquire' && op.type === 'invoke' && pair.includes(op.process as number) && op.time <= end,
  );
  // Each client's last acquire before its own write: the sections the anomaly came from.
  const starts = pair.map((p) => {
    const own = writes.find((w) => w.process === p);
    return acquires.filter((a) => a.process === p && a.time <= (own?.time ?? end)).at(-1)?.time ?? end;
  });
  return [Math.min(...starts), end];
}

function failingWindow(ops: readonly Op[], r: RunResults, pair: readonly number[]): Op[] {
  const [from, to] = windowSpan(ops, r, pair);
  return ops.filter((o) => o.time >= from && o.time <= to).slice(0, WINDOW_MAX_OPS);
}

/** `write #7 by p3 (A) erased by write #9 by p1 (B)`, or the overlap. */
export function describeAnomaly(
  r: Pick<RunResults, 'lostUpdateDetails' | 'overlapDetails'>,
  names: ReadonlyMap<number, string>,
): string {
  const who = (p: number) => `p${p}${names.has(p) ? ` (${names.get(p)})` : ''}`;
  const l = r.lostUpdateDetails?.[0];
  if (l)
    return `write #${l.lost.writeId} by ${who(l.lost.process)} erased by write #${l.overwrittenBy.writeId} by ${who(l.overwrittenBy.process)}`;
  const o = r.overlapDetails?.[0];
  if (o) return `${who(o.a.process)} and ${who(o.b.process)} held account ${o.account} at once (${o.kind})`;
  return 'no lost update or overlap';
}

/** The run options a scenario carries: how the lock and its faults behave, not the run's shape. */
function scenarioOptions(c: Partial<RunConfig>): Record<string, string | number | boolean> {
  const o: Record<string, string | number | boolean> = {};
  if (c.ttlMs !== undefined) o.ttl = c.ttlMs;
  if (c.fencing) o.fencing = true;
  if (c.watchdog) o.watchdog = true;
  if (c.restartDelayMs) o['restart-delay'] = c.restartDelayMs;
  if (c.redisPersistence && c.redisPersistence !== 'none') o['redis-persistence'] = c.redisPersistence;
  if (c.retry === 'harness') o.retry = 'harness';
  if (c.etcdNodes) o['etcd-nodes'] = c.etcdNodes;
  if (c.zkNodes) o['zk-nodes'] = c.zkNodes;
  return o;
}
