import pg from 'pg';
import type { FinalRead, LedgerRow, ReadOk, WriteValue } from '../history/bank.ts';

/**
 * The resource the locks protect: account rows in Postgres plus a ledger row per committed write, written in
 * the same statement, so that after a run every committed write is known and each lost one can be named.
 *
 * How a write is admitted:
 *  - `plain`   — blind read-modify-write (`SET balance = <what I computed>`), as an app trusting its lock does;
 *  - `fenced`  — only if the writer's token is ≥ the highest token the row has seen (Kleppmann's fencing). The
 *                read presents the token too and raises the row's fence: otherwise a paused old holder that
 *                resumes after the new holder's read but before its write would still get its stale write in
 *                (its token is newer than anything the row has *accepted*), only for the new holder to erase it;
 *  - `version` — only if the row's version is still the one the writer read (optimistic concurrency).
 */
export type WriteMode = 'plain' | 'fenced' | 'version';

export const INITIAL_BALANCE = 1000;

export type WriteOutcome = { ok: true; writeId: number } | { ok: false; reason: 'stale-token' | 'version-conflict' };

export async function setupResource(config: pg.ClientConfig, accounts: number): Promise<void> {
  const c = new pg.Client(config);
  await c.connect();
  try {
    await c.query(`
      DROP TABLE IF EXISTS ledger; DROP TABLE IF EXISTS accounts;
      CREATE TABLE accounts (
        id              int PRIMARY KEY,
        balance         bigint NOT NULL,
        initial_balance bigint NOT NULL,
        version         bigint NOT NULL DEFAULT 0,
        fence           numeric(20),
        last_write_id   bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE ledger (
        id           bigint PRIMARY KEY,
        account      int NOT NULL,
        process      int NOT NULL,
        token        text,
        from_balance bigint NOT NULL,
        to_balance   bigint NOT NULL,
        delta        bigint NOT NULL,
        based_on     bigint NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE SEQUENCE IF NOT EXISTS ledger_id_seq;`);
    await c.query(`SELECT setval('ledger_id_seq', 1, false)`);
    await c.query(
      `INSERT INTO accounts (id, balance, initial_balance) SELECT g, $1, $1 FROM generate_series(0, $2 - 1) g`,
      [INITIAL_BALANCE, accounts],
    );
  } finally {
    await c.end();
  }
}

const CONDITION: Record<WriteMode, string> = {
  plain: 'TRUE',
  fenced: '(fence IS NULL OR fence <= $3::numeric)',
  version: 'version = $9',
};

export class Resource {
  constructor(private readonly client: pg.Client) {}

  static async connect(config: pg.ClientConfig): Promise<Resource> {
    const client = new pg.Client(config);
    client.on('error', () => {});
    await client.connect();
    return new Resource(client);
  }

  /** With a token (fenced mode), the read is refused — `stale` — if the row has seen a newer token. */
  async read(account: number, token?: string): Promise<ReadOk | { stale: true }> {
    const { rows } =
      token === undefined
        ? await this.client.query('SELECT balance, version, last_write_id FROM accounts WHERE id = $1', [account])
        : await this.client.query(
            `UPDATE accounts SET fence = GREATEST(COALESCE(fence, $2::numeric), $2::numeric)
              WHERE id = $1 AND (fence IS NULL OR fence <= $2::numeric)
              RETURNING balance, version, last_write_id`,
            [account, token],
          );
    if (!rows.length) {
      if (token !== undefined) return { stale: true };
      throw new Error(`no account ${account}`);
    }
    return {
      account,
      balance: Number(rows[0].balance),
      version: Number(rows[0].version),
      lastWriteId: Number(rows[0].last_write_id),
    };
  }

  /**
   * One statement: the UPDATE's condition decides, and the ledger row exists iff the update happened. The
   * ledger id is drawn while the row lock is held, so ids on one account are in commit order.
   */
  async write(w: WriteValue, mode: WriteMode, process: number): Promise<WriteOutcome> {
    if (mode === 'fenced' && w.token === undefined) throw new Error('fenced write without a token');
    const { rows } = await this.client.query(
      `WITH u AS (
         UPDATE accounts
            SET balance = $2, version = version + 1, last_write_id = nextval('ledger_id_seq'),
                fence = CASE WHEN $3::numeric IS NULL THEN fence ELSE GREATEST(COALESCE(fence, $3::numeric), $3::numeric) END
          WHERE id = $1 AND ${CONDITION[mode]}
          RETURNING last_write_id)
       INSERT INTO ledger (id, account, process, token, from_balance, to_balance, delta, based_on)
       SELECT last_write_id, $1, $4, $5, $6, $2, $7, $8 FROM u
       RETURNING id`,
      // $9 exists only in the version condition: Postgres rejects parameters a statement doesn't use.
      [
        w.account,
        w.to,
        w.token ?? null,
        process,
        w.token ?? null,
        w.from,
        w.delta,
        w.basedOn,
        ...(mode === 'version' ? [w.version] : []),
      ],
    );
    if (rows.length) return { ok: true, writeId: Number(rows[0].id) };
    return { ok: false, reason: mode === 'fenced' ? 'stale-token' : 'version-conflict' };
  }

  async finalRead(account: number): Promise<FinalRead> {
    const acc = await this.client.query('SELECT balance, initial_balance, version, fence FROM accounts WHERE id = $1', [
      account,
    ]);
    const led = await this.client.query('SELECT * FROM ledger WHERE account = $1 ORDER BY id', [account]);
    const ledger: LedgerRow[] = led.rows.map((r) => ({
      writeId: Number(r.id),
      account: r.account,
      process: r.process,
      token: r.token,
      from: Number(r.from_balance),
      to: Number(r.to_balance),
      delta: Number(r.delta),
      basedOn: Number(r.based_on),
    }));
    const a = acc.rows[0];
    return {
      account,
      initialBalance: Number(a.initial_balance),
      balance: Number(a.balance),
      version: Number(a.version),
      fence: a.fence === null ? null : String(a.fence),
      ledger,
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}
