/**
 * The bare client of `bench throughput`: a run's client process (workloads/client.ts) without the harness. The
 * very same step loop (workloads/client-loop.ts: acquire → read → think → write → release, the back-off after a
 * lock not acquired, the 0–20 ms stagger, the step timeouts, the reconnect after an `info`), with the spec the
 * run's client gets (harness/client-specs.ts's clientSpecs), the same strategy module and Resource, on the real clock —
 * but its ops go nowhere: no IPC message per op, no journal, no harness process taking a core. It keeps each op's
 * process, type and stamp in memory and sends them once, after its time is up, so the benchmark counts them as it
 * counts a run's history (bench/throughput-window.ts). Forked by bench/throughput.ts, never by hand.
 */
import { runClientLoop } from '../workloads/client-loop.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { Resource } from '../workloads/resource.ts';
import type { LockStrategy } from '../locks/strategy.ts';
import type { OpType } from '../history/op.ts';

export type BareToClient = { type: 'start'; spec: ClientSpec } | { type: 'go'; untilNs: string };
export type BareFromClient =
  | { type: 'ready' }
  | {
      type: 'done';
      /** Per op, in emit order: its process, type, kind, stamp (ns, CLOCK_MONOTONIC, as a decimal string). */
      process: number[];
      opType: OpType[];
      f: string[];
      atNs: string[];
      /** Errors of `info` ops (their count and the last), as the run's history would show them. */
      infos: number;
      lastInfo?: string;
    };

const send = (m: BareFromClient, then: () => void = () => {}) => process.send?.(m, then);

let spec: ClientSpec;
let strategy: LockStrategy;

async function loop(untilNs: bigint): Promise<void> {
  const kept: { process: number[]; opType: OpType[]; f: string[]; atNs: string[] } = {
    process: [],
    opType: [],
    f: [],
    atNs: [],
  };
  let infos = 0;
  let lastInfo: string | undefined;
  const realClock = {
    now: () => process.hrtime.bigint(),
    setTimer(ms: number, fn: () => void) {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    },
  };
  await runClientLoop({
    spec,
    strategy,
    connectResource: () => Resource.connect(spec.pg),
    clock: realClock,
    emit: (op, at) => {
      kept.process.push(op.process as number);
      kept.opType.push(op.type);
      kept.f.push(op.f);
      kept.atNs.push(at.toString());
      if (op.type === 'info') {
        infos++;
        lastInfo = op.error;
      }
    },
    log: (line) => console.error(line),
    // As a run's client after `stop`: it finishes the iteration it is in, then closes its connections.
    stopping: () => process.hrtime.bigint() > untilNs,
  });
  send({ type: 'done', ...kept, infos, ...(lastInfo ? { lastInfo } : {}) }, () => process.exit(0));
}

process.on('message', (msg: BareToClient) => {
  if (msg.type === 'start') {
    spec = msg.spec;
    // Loaded before `go`, as a run's client has its module before its first op; it connects in the loop, as one does.
    void (async () => {
      strategy = (await import(spec.strategyUrl)).default as LockStrategy;
      send({ type: 'ready' });
    })().catch((err) => {
      console.error(`bare client ${msg.spec.slot}: ${(err as Error).stack}`);
      process.exit(1);
    });
  }
  if (msg.type === 'go')
    loop(BigInt(msg.untilNs)).catch((err) => {
      console.error(`bare client ${spec.slot} crashed: ${(err as Error).stack}`);
      process.exit(1);
    });
});
process.on('disconnect', () => process.exit(3));
