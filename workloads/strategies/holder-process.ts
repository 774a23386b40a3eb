import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { LockContext } from '../strategy.ts';

/**
 * A lock holder in its own OS process, for tests that pause a holder the way the nemesis does: SIGSTOP freezes
 * its keep-alives and heartbeats too, which closing a client in-process cannot imitate.
 *
 * The child connects with the strategy module, acquires `key`, prints `{"token": …}`, then answers one line
 * per command on stdin (`renew`, `release`) with one JSON line on stdout.
 */
export interface HolderProcess {
  pid: number;
  token: string | undefined;
  pause(): void;
  resume(): void;
  /** Resolves with the child's answer: `{ result }` or `{ error }`. */
  request(command: 'renew' | 'release'): Promise<{ result?: unknown; error?: string }>;
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
    say({ result: await client[line.trim()](lease) });
  } catch (err) {
    say({ error: String(err?.message ?? err) });
  }
}
await client.close();
`;

export async function startHolder(strategyFile: string, ctx: LockContext, key: string, readyTimeoutMs = 15_000): Promise<HolderProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    env: { ...process.env, HOLDER_STRATEGY: pathToFileURL(strategyFile).href, HOLDER_CTX: JSON.stringify(ctx), HOLDER_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (timeoutMs: number): Promise<{ token?: string; result?: unknown; error?: string }> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`holder process gave no answer in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
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
      kill,
    };
  } catch (err) {
    await kill();
    throw err;
  }
}
