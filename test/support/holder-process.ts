import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { LockContext } from '../../locks/strategy.ts';

/**
 * A lock holder in its own OS process, for tests that pause a holder the way the nemesis does: SIGSTOP freezes
 * its keep-alives and heartbeats too, which closing a client in-process cannot imitate.
 *
 * The child connects with the strategy module, acquires `key`, prints `{"token": …}`, then answers one line
 * per command on stdin with one JSON line on stdout: `renew` and `release` (of that first lease), and
 * `acquire` (the same key again, answering with the new token) — what a resumed former owner would try.
 */
export interface HolderProcess {
  pid: number;
  token: string | undefined;
  pause(): void;
  resume(): void;
  /** Resolves with the child's answer: `{ result }` or `{ error }`. */
  request(command: 'renew' | 'release' | 'acquire'): Promise<{ result?: unknown; error?: string }>;
  /**
   * Ends stdin: the child closes its client and should then exit by itself. Resolves with the exit code, or
   * null if it was still running after `timeoutMs` (a client whose `close()` leaves handles open).
   */
  finish(timeoutMs?: number): Promise<number | null>;
  /** SIGCONT then SIGKILL: a stopped process would never see a gentler signal. */
  kill(): Promise<void>;
}

const CHILD = `
const { default: strategy } = await import(process.env.HOLDER_STRATEGY);
const client = await strategy.connect(JSON.parse(process.env.HOLDER_CTX));
const lease = await client.acquire(process.env.HOLDER_KEY);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
say({ token: lease.token });
const { createInterface } = await import('node:readline');
for await (const line of createInterface({ input: process.stdin })) {
  try {
    const command = line.trim();
    if (command === 'acquire') say({ result: (await client.acquire(process.env.HOLDER_KEY)).token });
    else say({ result: await client[command](lease) });
  } catch (err) {
    say({ error: String(err?.name) + ': ' + String(err?.message ?? err) });
  }
}
await client.close();
`;

export async function startHolder(
  strategyFile: string,
  ctx: LockContext,
  key: string,
  readyTimeoutMs = 15_000,
): Promise<HolderProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      HOLDER_STRATEGY: pathToFileURL(strategyFile).href,
      HOLDER_CTX: JSON.stringify(ctx),
      HOLDER_KEY: key,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (timeoutMs: number): Promise<{ token?: string; result?: unknown; error?: string }> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`holder process gave no answer in ${timeoutMs} ms; stderr: ${stderr}`)),
        timeoutMs,
      );
    });
    try {
      const line = await Promise.race([lines.next(), timeout]);
      if (line.done) throw new Error(`holder process exited; stderr: ${stderr}`);
      return JSON.parse(line.value);
    } finally {
      clearTimeout(timer);
    }
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  try {
    const first = await next(readyTimeoutMs);
    return {
      pid: child.pid!,
      token: first.token,
      pause: () => child.kill('SIGSTOP'),
      resume: () => child.kill('SIGCONT'),
      request: async (command) => {
        child.stdin!.write(`${command}\n`);
        return next(10_000);
      },
      finish: async (timeoutMs = 5_000) => {
        const exited = once(child, 'exit').then(() => child.exitCode);
        child.stdin!.end();
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs)));
        const code = await Promise.race([exited, late]);
        clearTimeout(timer);
        return code;
      },
      kill,
    };
  } catch (err) {
    await kill();
    throw err;
  }
}
