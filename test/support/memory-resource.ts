import type { FinalRead, LedgerRow, ReadOk, WriteValue } from '../../history/bank.ts';
import type { BankResource } from '../../workloads/client-loop.ts';
import { INITIAL_BALANCE, type WriteMode, type WriteOutcome } from '../../workloads/resource.ts';
import type { VirtualTime } from './virtual-time.ts';

interface Account {
  balance: number;
  version: number;
  lastWriteId: number;
  fence: bigint | null;
  ledger: LedgerRow[];
}

export interface MemoryResourceOptions {
  accounts: number;
  /** Per-call latency, ms. */
  latency: () => number;
  /** Chance that a write times out for the client: it lands or not (at random), and the client sees an error. */
  infoRate?: number;
  random: () => number;
}

/** What a fault can do to one call of one client: fail it with an error, or act once it completed. */
export interface CallHooks {
  /** Before a read answers: an error message makes the read throw it (an unknown outcome). */
  beforeRead?(slot: number): string | undefined;
  afterRead?(slot: number, read: ReadOk): void;
}

/**
 * The bank's account rows and ledger in memory, with the rules of workloads/resource.ts's SQL: a fenced read or
 * write is refused once the row has accepted a newer token, a version write needs the version it read, and each
 * committed write gets a ledger row.
 */
export class MemoryResource {
  private readonly rows: Account[];
  private writeIds = 0;

  constructor(
    private readonly time: VirtualTime,
    private readonly opts: MemoryResourceOptions,
    private readonly hooks: CallHooks = {},
  ) {
    this.rows = Array.from({ length: opts.accounts }, () => ({
      balance: INITIAL_BALANCE,
      version: 0,
      lastWriteId: 0,
      fence: null,
      ledger: [],
    }));
  }

  connect(slot: number): BankResource {
    const { time, opts, hooks } = this;
    return {
      read: async (account: number, token?: string) => {
        await time.sleep(opts.latency());
        const error = hooks.beforeRead?.(slot);
        if (error !== undefined) throw new Error(error);
        const row = this.rows[account];
        if (token !== undefined && row.fence !== null && BigInt(token) < row.fence) return { stale: true as const };
        const read: ReadOk = { account, balance: row.balance, version: row.version, lastWriteId: row.lastWriteId };
        hooks.afterRead?.(slot, read);
        return read;
      },
      write: async (w: WriteValue, mode: WriteMode, process: number): Promise<WriteOutcome> => {
        await time.sleep(opts.latency());
        const row = this.rows[w.account];
        const token = w.token === undefined || !/^\d+$/.test(w.token) ? null : BigInt(w.token);
        if (mode === 'fenced' && token !== null && row.fence !== null && token < row.fence)
          return { ok: false, reason: 'stale-token' };
        if (mode === 'version' && w.version !== row.version) return { ok: false, reason: 'version-conflict' };
        const timedOut = opts.random() < (opts.infoRate ?? 0);
        if (!timedOut || opts.random() < 0.5) {
          const writeId = ++this.writeIds;
          row.ledger.push({
            writeId,
            account: w.account,
            process,
            token: w.token ?? null,
            from: w.from,
            to: w.to,
            delta: w.delta,
            basedOn: w.basedOn,
          });
          row.balance = w.to;
          row.version++;
          row.lastWriteId = writeId;
          if (token !== null && (row.fence === null || token > row.fence)) row.fence = token;
          if (!timedOut) return { ok: true, writeId };
        }
        throw new Error('timeout');
      },
      close: async () => {},
    };
  }

  finalRead(account: number): FinalRead {
    const row = this.rows[account];
    return {
      account,
      initialBalance: INITIAL_BALANCE,
      balance: row.balance,
      version: row.version,
      fence: row.fence === null ? null : String(row.fence),
      ledger: row.ledger,
    };
  }
}
