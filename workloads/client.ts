/**
 * A client of the bank workload, one OS process per client so the nemesis can SIGSTOP exactly one holder while
 * the others run. It runs the step loop (client-loop.ts) on the real clock, reporting every step to the harness
 * over IPC with its own monotonic time stamp (taken just before the call and right after it returns: an IPC
 * message can arrive late, the stamp cannot); the harness journals them. Started by the harness with `fork`,
 * never by hand.
 */
import { runClientLoop, type ClientClock } from './client-loop.ts';
import type { ClientSpec, FromClient, ToClient } from './client-protocol.ts';
import { Resource } from './resource.ts';
import type { LockStrategy } from './strategy.ts';

function send(msg: FromClient): void {
  process.send?.(msg);
}

/** CLOCK_MONOTONIC, the clock the harness's journal measures from, and the process's own timers. */
const realClock: ClientClock = {
  now: () => process.hrtime.bigint(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

let stopping = false;

async function main(spec: ClientSpec): Promise<void> {
  const strategy = (await import(spec.strategyUrl)).default as LockStrategy;
  await runClientLoop({
    spec,
    strategy,
    connectResource: () => Resource.connect(spec.pg),
    clock: realClock,
    emit: (op, at) => send({ type: 'op', op, at: at.toString() }),
    log: (line) => send({ type: 'log', line }),
    stopping: () => stopping,
  });
}

process.on('message', (msg: ToClient) => {
  if (msg.type === 'stop') stopping = true;
  if (msg.type === 'start') {
    main(msg.spec).then(
      () => {
        // Exit only once the last message is out of the IPC pipe, or the harness would miss the final ops.
        if (process.send) process.send({ type: 'stopped' } satisfies FromClient, () => process.exit(0));
        else process.exit(0);
      },
      (err) => {
        send({ type: 'log', line: `client ${msg.spec.slot} crashed: ${(err as Error).stack}` });
        process.exit(1);
      },
    );
  }
});
// The harness is gone (kill -9, OOM) when its end of the IPC channel closes: a client has nobody to report
// to, so it ends rather than run on as an orphan hammering the cluster.
process.on('disconnect', () => process.exit(3));
send({ type: 'ready' });
