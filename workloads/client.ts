/**
 * A client of the bank workload, one OS process per client so the nemesis can SIGSTOP exactly one holder while
 * the others run. It runs the step loop (client-loop.ts) on the real clock, reporting every step to the harness
 * over IPC with its own monotonic time stamp (taken just before the call and right after it returns: an IPC
 * message can arrive late, the stamp cannot); the harness journals them. Started by the harness with `fork`,
 * never by hand.
 */
import fs from 'node:fs';
import { runClientLoop, type ClientClock, type ClientLoop } from './client-loop.ts';
import { runDrivenClient, type DrivenCommand } from './driven-client.ts';
import type { ClientSpec, FromClient, ToClient } from './client-protocol.ts';
import { Resource } from './resource.ts';
import type { LockStrategy } from '../locks/strategy.ts';
import { OpOutbox } from './op-outbox.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';

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
/**
 * Set once its lock process exited on its own and this client is on its way out: the line saying so stays the last
 * of its log (what the harness shows as the reason), not the failure of the request that exit cut short.
 */
let dying = false;

/** A driven client's commands as they arrive, and the loop's wait for the next (null once stopping). */
const commands: DrivenCommand[] = [];
let commandArrived: (() => void) | null = null;
async function nextStep(): Promise<DrivenCommand | null> {
  while (!stopping && commands.length === 0) await new Promise<void>((r) => (commandArrived = r));
  return stopping ? null : commands.shift()!;
}
function wake(): void {
  const w = commandArrived;
  commandArrived = null;
  w?.();
}

/** An argument of the command line the harness forked this process with. */
function argOf(name: string): string {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`client: started without ${name}; the harness forks clients, not a person`);
  return v;
}

// The ops' way to the harness: invokes written ahead to this process's in-flight file and held for their
// completion, completions sent at once — or, when no fault of the run aims by them (spec.opBatchMs), every op written
// ahead and sent in batches (op-outbox.ts says why). Made when the spec arrives; nothing is emitted before that.
const inFlight = fs.openSync(argOf('--in-flight'), 'a', RUN_FILE_MODE);
let outbox: OpOutbox | null = null;
function outboxFor(spec: ClientSpec): OpOutbox {
  return new OpOutbox(
    {
      writeAhead: (line) => fs.writeSync(inFlight, line),
      send: (ops) => send({ type: 'ops', ops }),
      setTimer: realClock.setTimer,
      now: realClock.now,
    },
    { batchMs: spec.opBatchMs },
  );
}

/** Exit code of a client whose foreign lock process exited on its own: the harness records `client-exited`. */
export const LOCK_PROCESS_EXITED = 4;

/**
 * A lock in another language: the client starts its process and reports its pid, so the harness pauses it with
 * this process and kills it with it. When it exits on its own the client dies too (after saying why in its log),
 * and the harness records that as any client death: its open op `info` with `client-exited`, the log's last lines.
 */
async function foreignLock(spec: ClientSpec & { foreign: NonNullable<ClientSpec['foreign']> }): Promise<LockStrategy> {
  // Imported for a foreign lock only: execa and the protocol cost ~0.3 s of CPU at start-up, which every other client was paying.
  const { foreignStrategy } = await import('./foreign/foreign-strategy.ts');
  const command = spec.foreign.command.join(' ');
  const placement = { cgroupParent: spec.lockCgroup ?? null };
  return foreignStrategy(
    'foreign',
    spec.foreign,
    {
      spawned: (pid) => send({ type: 'lock-process', pid, command }),
      exited: ({ pid, code, signal, expected }) => {
        send({ type: 'lock-process', pid: null, ended: pid });
        if (expected || stopping) return;
        dying = true;
        outbox?.flush();
        const line = `client ${spec.slot}: its lock process (pid ${pid}: ${command}) exited on its own with ${signal ? `signal ${signal}` : `code ${code}`}`;
        if (process.send)
          process.send({ type: 'log', line } satisfies FromClient, () => process.exit(LOCK_PROCESS_EXITED));
        else process.exit(LOCK_PROCESS_EXITED);
      },
    },
    placement,
  );
}

/** Exit code of a client whose lock library ended it on purpose (LockStrategy.libraryCrash named the error). */
export const LIBRARY_CRASHED = 5;

/**
 * For a strategy that names its library's own crashes: an error reaching the top level still ends the process, as
 * it would end the library's user's (Node's default for an uncaught exception or an unhandled rejection: print it,
 * exit 1) — but one the strategy names is first reported as the library's, then ends with LIBRARY_CRASHED.
 */
function watchLibraryCrashes(strategy: LockStrategy, ops: OpOutbox, abandonSection: () => boolean): void {
  if (typeof strategy.libraryCrash !== 'function') return;
  process.on('uncaughtException', (err, origin) => {
    let name: string | undefined;
    try {
      name = strategy.libraryCrash!(err);
    } catch {
      name = undefined;
    }
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(
      `${origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception'}: ${text}\n`,
    );
    // Ended by its library while thinking: the write it will never send is a fail, lock-lost (the library's verdict).
    if (name) abandonSection();
    ops.flush();
    if (!name || !process.send) process.exit(1);
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    process.send({ type: 'library-crash', error: name, message } satisfies FromClient, () =>
      process.exit(LIBRARY_CRASHED),
    );
  });
}

async function main(spec: ClientSpec, ops: OpOutbox): Promise<void> {
  const strategy = spec.foreign
    ? await foreignLock({ ...spec, foreign: spec.foreign })
    : ((await import(spec.strategyUrl)).default as LockStrategy);
  let abandonSection = () => false;
  watchLibraryCrashes(strategy, ops, () => abandonSection());
  const loop: ClientLoop = {
    onSection: (abandon) => (abandonSection = abandon),
    spec,
    strategy,
    connectResource: () => Resource.connect(spec.pg),
    clock: realClock,
    emit: (op, at, beforeCall) => ops.emit(op, at, beforeCall),
    log: (line) => {
      if (!dying) send({ type: 'log', line });
    },
    stopping: () => stopping,
  };
  if (!spec.driven) return runClientLoop(loop);
  await runDrivenClient({
    ...loop,
    account: spec.driven.account,
    nextStep,
    waiting: () => send({ type: 'waiting' }),
    refused: (seq, reason) => send({ type: 'step-refused', seq, reason }),
  });
}

process.on('message', (msg: ToClient) => {
  if (msg.type === 'stop') {
    stopping = true;
    wake();
  }
  if (msg.type === 'step') {
    commands.push({ seq: msg.seq, f: msg.f });
    wake();
  }
  // Both clocks as this process reads them (through the clock shim when it is preloaded): clock-rate-client's slope.
  if (msg.type === 'clock')
    send({ type: 'clock', seq: msg.seq, wallMs: Date.now(), monoNs: realClock.now().toString() });
  if (msg.type === 'start') {
    const ops = (outbox = outboxFor(msg.spec));
    main(msg.spec, ops).then(
      () => {
        // Exit only once the last message is out of the IPC pipe, or the harness would miss the final ops.
        ops.flush();
        if (process.send) process.send({ type: 'stopped' } satisfies FromClient, () => process.exit(0));
        else process.exit(0);
      },
      (err) => {
        ops.flush();
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
