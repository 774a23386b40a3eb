import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../cluster.ts';
import { createLocalCluster } from '../local/cluster.ts';
import { PidRegistry, isAlive } from '../../common/pid-registry.ts';
import { requireServersTier } from '../../test/support/servers-tier.ts';
import { signedDynamoHeaders } from './sigv4.ts';
import { REFUSED_TYPE } from './dynalite-guard.ts';
import type { DynaliteNode } from './dynalite-node.ts';

/**
 * The run's DynamoDB as a run starts it: dynalite in its own process on 127.0.0.1, behind the guard that lets only the
 * run's access key id through. Real requests over HTTP, signed with the run's key and with another.
 */
requireServersTier('dynalite-node.servers.test.ts');

let runDir: string;
let cluster: Cluster;
let node: DynaliteNode;

beforeAll(async () => {
  runDir = await mkdtemp(path.join(tmpdir(), 'fencepost-dynalite-'));
  cluster = await createLocalCluster({ dynamodb: true }, runDir, new PidRegistry(path.join(runDir, 'pids')));
  await cluster.start();
  node = cluster.dynamodb!;
});

afterAll(async () => {
  await cluster?.teardown();
  if (runDir) await rm(runDir, { recursive: true, force: true });
});

/** One DynamoDB call to the node, signed with `accessKeyId` (or unsigned when null). */
async function call(accessKeyId: string | null, action: string, request: object) {
  const body = JSON.stringify(request);
  const host = `127.0.0.1:${node.port}`;
  const keys = { accessKeyId: accessKeyId ?? '', secretAccessKey: 'anything', region: 'us-east-1' };
  const headers = signedDynamoHeaders(keys, host, action, body);
  if (accessKeyId === null) delete headers.authorization;
  const res = await fetch(`http://${host}/`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("the run's dynalite", () => {
  it("serves a request that names the run's access key id, and has the run's lock table ready", async () => {
    const { accessKeyId, table, partitionKey } = node.clientConfig();
    const r = await call(accessKeyId, 'DescribeTable', { TableName: table });
    expect(r.status).toBe(200);
    const desc = r.body.Table as { TableStatus: string; KeySchema: { AttributeName: string }[] };
    expect(desc.TableStatus).toBe('ACTIVE');
    expect(desc.KeySchema).toEqual([{ AttributeName: partitionKey, KeyType: 'HASH' }]);
    expect(table).toBe(`fencepost-locks-${path.basename(runDir)}`);
  });

  it('refuses 403 a request signed with another key id, and one without Authorization, before dynalite acts', async () => {
    const other = 'AKIAOTHERKEY00000000';
    const wrong = await call(other, 'CreateTable', {
      TableName: 'intruder',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.__type).toBe(REFUSED_TYPE);
    const unsigned = await call(null, 'ListTables', {});
    expect(unsigned.status).toBe(403);
    // Nothing the refused requests asked for happened: the run's table is the only one.
    const listed = await call(node.clientConfig().accessKeyId, 'ListTables', {});
    expect(listed.body.TableNames).toEqual([node.clientConfig().table]);
  });

  it("runs as a process of the run, as the harness's user, recorded for cleanup, listening on 127.0.0.1 only", async () => {
    const [pid] = node.pids();
    expect(isAlive(pid)).toBe(true);
    // The harness's own user, like the lock clients: it runs fencepost's code, which a service account cannot read
    // in a private checkout (.ci/run's 0700 clone: it once died there, ERR_MODULE_NOT_FOUND for tsx's loader).
    const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    expect(uid).toBe(process.getuid?.());
    const records = fs.readdirSync(path.join(runDir, 'pids'));
    expect(records).toContain('dynamodb.json');
    const listening = fs.readFileSync('/proc/net/tcp', 'utf8');
    // 0100007F = 127.0.0.1, state 0A = LISTEN, at the node's port.
    const port = node.port.toString(16).toUpperCase().padStart(4, '0');
    expect(listening).toMatch(new RegExp(`0100007F:${port} 00000000:0000 0A`));
    expect(listening).not.toMatch(new RegExp(`00000000:${port} 00000000:0000 0A`));
  });
});
