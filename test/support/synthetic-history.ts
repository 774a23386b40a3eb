import type { Op } from '../../harness/history/op.ts';
import { seededRandom } from '../../workloads/strategy.ts';
import type { FinalRead, LedgerRow } from '../../harness/history/bank.ts';

export interface SyntheticOptions {
  /** Roughly how many history entries to produce (each op is an invoke and a completion). */
  ops: number;
  processes: number;
  accounts?: number;
  seed?: number;
  /**
   * Chance that an acquire is granted although another client holds the lock (a lock that failed): both then
   * run their read → write concurrently, which usually loses an update.
   */
  brokenLockRate?: number;
  /** Chance that a write times out (`info`); it lands or not at random, and the client continues as a new process. */
  infoRate?: number;
  /** The resource refuses writes with a token older than the newest it accepted (`stale-token`). */
  fencing?: boolean;
}

export interface SyntheticHistory {
  history: Op[];
  /** Acquires granted while the lock was held. */
  brokenGrants: number;
}

type Step = 'acquire-invoke' | 'acquire-ok' | 'read-invoke' | 'read-ok' | 'write-invoke' | 'write-done' | 'release-invoke' | 'release-ok' | 'waiting';

interface Client {
  slot: number;
  process: number;
  generation: number;
  step: Step;
  at: number;
  account: number;
  token: string;
  broken: boolean;
  read?: { balance: number; lastWriteId: number; version: number };
  write?: { from: number; to: number; delta: number; basedOn: number };
}

interface Account {
  balance: number;
  initialBalance: number;
  version: number;
  lastWriteId: number;
  fence: bigint | null;
  holder: number | null;
  waiters: number[];
  ledger: LedgerRow[];
}

/**
 * A bank history as fencepost's clients would record it against a simulated lock and resource: each client
 * loops acquire → read → write → release, waiting in line for the lock. Deterministic for a seed. Used by the
 * benchmark and by tests that need histories bigger than a literal one.
 */
export function generateBankHistory(opts: SyntheticOptions): SyntheticHistory {
  const random = seededRandom(opts.seed ?? 1);
  const nAccounts = opts.accounts ?? 1;
  const history: Op[] = [];
  const emit = (process: Op['process'], type: Op['type'], f: string, value: unknown, time: number, error?: string): void => {
    history.push({ index: history.length, time, process, type, f, value, ...(error ? { error } : {}) });
  };
  const latency = (): number => Math.floor(200_000 + random() * 1_800_000);
  const think = (): number => Math.floor(random() * 1_000_000);

  const accounts: Account[] = Array.from({ length: nAccounts }, () => ({
    balance: 1000,
    initialBalance: 1000,
    version: 0,
    lastWriteId: 0,
    fence: null,
    holder: null,
    waiters: [],
    ledger: [],
  }));
  const clients: Client[] = Array.from({ length: opts.processes }, (_, slot) => ({
    slot,
    process: slot,
    generation: 0,
    step: 'acquire-invoke' as Step,
    at: Math.floor(random() * 1_000_000),
    account: 0,
    token: '0',
    broken: false,
  }));
  let writeIds = 0;
  let tokens = 0;
  let brokenGrants = 0;

  const handOver = (account: Account, at: number): void => {
    account.holder = null;
    const next = account.waiters.shift();
    if (next === undefined) return;
    account.holder = next;
    const c = clients[next];
    c.step = 'acquire-ok';
    c.at = at + latency();
  };

  for (;;) {
    let c: Client | undefined;
    for (const candidate of clients) {
      if (candidate.step === 'waiting') continue;
      if (candidate.step === 'acquire-invoke' && history.length >= opts.ops) continue;
      if (!c || candidate.at < c.at) c = candidate;
    }
    if (!c) break;
    const t = c.at;
    const account = accounts[c.account];
    switch (c.step) {
      case 'acquire-invoke': {
        c.account = Math.floor(random() * nAccounts);
        const a = accounts[c.account];
        emit(c.process, 'invoke', 'acquire', { account: c.account }, t);
        c.broken = false;
        if (a.holder === null) {
          a.holder = c.slot;
          c.step = 'acquire-ok';
          c.at = t + latency();
        } else if (random() < (opts.brokenLockRate ?? 0)) {
          brokenGrants++;
          c.broken = true;
          c.step = 'acquire-ok';
          c.at = t + latency();
        } else {
          a.waiters.push(c.slot);
          c.step = 'waiting';
        }
        break;
      }
      case 'acquire-ok':
        c.token = String(++tokens);
        emit(c.process, 'ok', 'acquire', { account: c.account, token: c.token, attempts: 1 }, t);
        c.step = 'read-invoke';
        c.at = t + think();
        break;
      case 'read-invoke':
        emit(c.process, 'invoke', 'read', { account: c.account }, t);
        c.step = 'read-ok';
        c.at = t + latency();
        break;
      case 'read-ok':
        c.read = { balance: account.balance, lastWriteId: account.lastWriteId, version: account.version };
        emit(c.process, 'ok', 'read', { account: c.account, ...c.read }, t);
        c.step = 'write-invoke';
        c.at = t + think();
        break;
      case 'write-invoke': {
        const delta = 1 + Math.floor(random() * 100);
        c.write = { from: c.read!.balance, to: c.read!.balance + delta, delta, basedOn: c.read!.lastWriteId };
        emit(c.process, 'invoke', 'write', { account: c.account, ...c.write, token: c.token }, t);
        c.step = 'write-done';
        c.at = t + latency();
        break;
      }
      case 'write-done': {
        const w = { account: c.account, ...c.write!, token: c.token };
        if (opts.fencing && account.fence !== null && BigInt(c.token) < account.fence) {
          emit(c.process, 'fail', 'write', w, t, 'stale-token');
          c.step = 'release-invoke';
          c.at = t + think();
          break;
        }
        const timedOut = random() < (opts.infoRate ?? 0);
        const lands = !timedOut || random() < 0.5;
        let writeId = 0;
        if (lands) {
          writeId = ++writeIds;
          account.ledger.push({ writeId, account: c.account, process: c.process, token: c.token, ...c.write! });
          account.balance = c.write!.to;
          account.lastWriteId = writeId;
          account.version++;
          const token = BigInt(c.token);
          if (account.fence === null || token > account.fence) account.fence = token;
        }
        if (timedOut) {
          emit(c.process, 'info', 'write', w, t, 'timeout');
          // The client gives up on this process id; its lease dies with it (here: at once).
          if (!c.broken && account.holder === c.slot) handOver(account, t);
          c.generation++;
          c.process = c.slot + opts.processes * c.generation;
          c.step = 'acquire-invoke';
          c.at = t + think();
          break;
        }
        emit(c.process, 'ok', 'write', { ...w, writeId }, t);
        c.step = 'release-invoke';
        c.at = t + think();
        break;
      }
      case 'release-invoke':
        emit(c.process, 'invoke', 'release', { account: c.account, token: c.token }, t);
        c.step = 'release-ok';
        c.at = t + latency();
        break;
      case 'release-ok': {
        const released = !c.broken && account.holder === c.slot;
        emit(c.process, 'ok', 'release', { account: c.account, released }, t);
        if (released) handOver(account, t);
        c.step = 'acquire-invoke';
        c.at = t + think();
        break;
      }
      case 'waiting':
        break;
    }
  }

  let t = history.length > 0 ? history[history.length - 1].time : 0;
  accounts.forEach((a, account) => {
    emit('harness', 'invoke', 'final-read', { account }, (t += 1000));
    const final: FinalRead = {
      account,
      initialBalance: a.initialBalance,
      balance: a.balance,
      version: a.version,
      fence: a.fence === null ? null : String(a.fence),
      ledger: a.ledger,
    };
    emit('harness', 'ok', 'final-read', final, (t += 1000));
  });
  return { history, brokenGrants };
}
