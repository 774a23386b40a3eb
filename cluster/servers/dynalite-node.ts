import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';
import type { DynamoEndpoint } from './dynamo-endpoint.ts';
import { signedDynamoHeaders } from './sigv4.ts';

export interface DynaliteNodeOptions extends ServerNodeOptions {
  /** The run's access key id (the guard lets only it through) and secret (which nothing checks: dynalite-guard.ts). */
  accessKeyId: string;
  secretAccessKey: string;
  /** The run's own lock table, created by the readiness probe. */
  table: string;
}

/** The region every call is scoped to: dynalite wants a valid one and keeps a single namespace whatever it is. */
export const DYNAMO_REGION = 'us-east-1';
/** The lock table's hash key: README's CloudFormation example's `id`. */
export const DYNAMO_PARTITION_KEY = 'id';

const SERVER_SCRIPT = new URL('./dynalite-server.ts', import.meta.url).pathname;
const TSX = import.meta.resolve('tsx');

/**
 * dynalite, DynamoDB's API on an in-memory LevelDB (npm `dynalite`, a dependency of fencepost: a server the harness
 * starts, like the Debian servers, unlike the lock libraries it measures), for the rows whose lock lives in DynamoDB.
 * One per run, only when such a row runs; 127.0.0.1 only; its requests must name the run's access key id (the guard
 * in dynalite-server.ts). A node process of its own, run as the harness's own user, like the lock clients: it runs
 * fencepost's code from the checkout, which a service account cannot read where the checkout is private (a 0700
 * home or mktemp folder: .ci/run's). A pid of the run like every server, so `cleanup` finds it and nothing else. It
 * keeps nothing on disk.
 */
export class DynaliteNode extends ServerNode {
  private readonly dynamoOpts: DynaliteNodeOptions;

  constructor(opts: DynaliteNodeOptions) {
    super(opts);
    this.dynamoOpts = opts;
  }

  private get keyFile(): string {
    return path.join(this.home, 'access-key.json');
  }

  protected override async prepare(): Promise<void> {
    // 0600: the key id is the one thing the guard checks; it stays out of argv and the environment.
    fs.writeFileSync(this.keyFile, `${JSON.stringify({ accessKeyId: this.dynamoOpts.accessKeyId })}\n`, {
      mode: 0o600,
    });
  }

  protected command(): Command {
    return {
      file: process.execPath,
      args: ['--import', TSX, SERVER_SCRIPT, String(this.port), this.keyFile],
    };
  }

  /** What the lock clients are handed: the server's own address, the run's keys and table. */
  clientConfig(): DynamoEndpoint {
    const o = this.dynamoOpts;
    return {
      endpoint: `http://127.0.0.1:${this.port}`,
      region: DYNAMO_REGION,
      accessKeyId: o.accessKeyId,
      secretAccessKey: o.secretAccessKey,
      table: o.table,
      partitionKey: DYNAMO_PARTITION_KEY,
    };
  }

  /** One signed DynamoDB call with the run's keys: its status and its JSON answer. */
  async call(action: string, request: object): Promise<{ status: number; body: Record<string, unknown> }> {
    const body = JSON.stringify(request);
    const host = `127.0.0.1:${this.port}`;
    const res = await fetch(`http://${host}/`, {
      method: 'POST',
      headers: signedDynamoHeaders(this.clientConfig(), host, action, body),
      body,
      signal: AbortSignal.timeout(2000),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /**
   * Ready when the run's lock table is there: DescribeTable, and CreateTable the first time (on demand billing, a
   * string hash key). A fresh start of an in-memory server has no table, so a restart creates it again.
   */
  protected async probe(): Promise<void> {
    const table = this.dynamoOpts.table;
    const found = await this.call('DescribeTable', { TableName: table });
    if (found.status === 200) {
      // CreateTable answers CREATING and dynalite turns it ACTIVE on a timer of its own (even at createTableMs 0): a
      // client's first request before that is refused, so the node is ready only once the table is ACTIVE (.ci/run
      // on a busy machine once described it CREATING right after readiness).
      const status = (found.body.Table as { TableStatus?: string } | undefined)?.TableStatus;
      if (status !== 'ACTIVE') throw new Error(`table ${table} is ${status ?? 'of no status'}, not ACTIVE yet`);
      return;
    }
    if (!String(found.body.__type).endsWith('ResourceNotFoundException'))
      throw new Error(`DescribeTable ${table}: ${found.status} ${JSON.stringify(found.body)}`);
    const created = await this.call('CreateTable', {
      TableName: table,
      AttributeDefinitions: [{ AttributeName: DYNAMO_PARTITION_KEY, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: DYNAMO_PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    if (created.status !== 200)
      throw new Error(`CreateTable ${table}: ${created.status} ${JSON.stringify(created.body)}`);
    // Not ready yet: the next probe describes it, and is ready once it reads ACTIVE.
    throw new Error(`table ${table} created, not ACTIVE yet`);
  }

  /** dynalite's own package version (it answers no version call). */
  async version(): Promise<string> {
    const file = createRequire(import.meta.url).resolve('dynalite/package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  }
}

/** A table name of the run's own: DynamoDB allows [A-Za-z0-9_.-], 3 to 255 characters. */
export function runTableName(runDir: string): string {
  return `fencepost-locks-${path.basename(runDir).replace(/[^A-Za-z0-9_.-]/g, '-')}`.slice(0, 255);
}
