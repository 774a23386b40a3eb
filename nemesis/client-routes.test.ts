import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { LOCK_SESSIONS, clientRoute, clientRoutes, framedRoutes, routeClientsAlone } from './client-routes.ts';
import { TcpProxy } from './proxy/tcp-proxy.ts';
import { eventually } from '../test/support/eventually.ts';

const proxies = new Map<string, TcpProxy>();
const servers: net.Server[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all([...proxies.values()].map((p) => p.close()));
  proxies.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server on 127.0.0.1 that answers every connection with `name`, so a test can tell where a route leads. */
async function namedServer(name: string): Promise<number> {
  const server = net.createServer((socket) => socket.end(name));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

function greeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    net
      .connect({ host: '127.0.0.1', port })
      .on('data', (c) => (data += c))
      .on('end', () => resolve(data))
      .on('error', reject);
  });
}

/** Sends `text` and returns what has come back so far, whenever asked; the socket is closed after the test. */
function sendTo(port: number, text: string): () => string {
  let data = '';
  const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(text));
  sockets.push(socket);
  socket.on('data', (c) => (data += c));
  socket.on('error', () => {});
  return () => data;
}

function spec(slot: number, ports: Record<string, number>): ClientSpec {
  return {
    slot,
    concurrency: 2,
    strategyUrl: 'file:///unused',
    ctx: {
      redis: [{ host: '127.0.0.1', port: ports.redis, password: 'pw' }],
      etcd: [`http://127.0.0.1:${ports.etcd}`],
      zookeeper: `127.0.0.1:${ports.zk}`,
      ttlMs: 2000,
      acquireTimeoutMs: 7000,
      client: slot,
      seed: 1,
    },
    pg: { host: '127.0.0.1', port: ports.pg, user: 'fencepost' },
    mode: 'plain',
    thinkMs: 100,
    accounts: 1,
    watchdog: false,
    seed: 1,
    stepTimeoutMs: 9000,
    opBatchMs: null,
  };
}

describe('routeClientsAlone', () => {
  it('gives each client its own proxy in front of each shared one, chained to the same server', async () => {
    const ports: Record<string, number> = {};
    for (const name of ['pg', 'redis[0]', 'etcd[0]', 'zk[0]']) {
      const shared = await TcpProxy.start({ targetPort: await namedServer(name) });
      proxies.set(name, shared);
      ports[name.replace('[0]', '')] = shared.port;
    }
    const specs = [spec(0, ports), spec(1, ports)];
    await routeClientsAlone(specs, proxies);

    expect(proxies.size).toBe(4 + 2 * 4);
    expect([...clientRoutes(proxies, 1).keys()].sort()).toEqual(['etcd[0]', 'pg', 'redis[0]', 'zk[0]']);
    const own = (slot: number, upstream: string) => proxies.get(clientRoute(slot, upstream))!;
    for (const s of specs) {
      expect(s.pg).toEqual({ host: '127.0.0.1', port: own(s.slot, 'pg').port, user: 'fencepost' });
      expect(s.ctx.redis).toEqual([{ host: '127.0.0.1', port: own(s.slot, 'redis[0]').port, password: 'pw' }]);
      expect(s.ctx.etcd).toEqual([`http://127.0.0.1:${own(s.slot, 'etcd[0]').port}`]);
      expect(s.ctx.zookeeper).toBe(`127.0.0.1:${own(s.slot, 'zk[0]').port}`);
    }
    expect(own(0, 'pg').port).not.toBe(own(1, 'pg').port);
    // Each route reaches the server through the shared proxy, so faults on the shared one still apply.
    expect(await greeting(own(1, 'zk[0]').port)).toBe('zk[0]');
    expect(await greeting(own(0, 'pg').port)).toBe('pg');
    expect(proxies.get('pg')!.counters().connections).toBe(1);
  });

  it("frames a client's Redis, ZooKeeper and etcd routes, so a fault can aim at one request there; Postgres stays unframed", async () => {
    const ports: Record<string, number> = {};
    for (const name of ['pg', 'redis[0]', 'etcd[0]', 'zk[0]']) {
      const shared = await TcpProxy.start({ targetPort: await namedServer(name) });
      proxies.set(name, shared);
      ports[name.replace('[0]', '')] = shared.port;
    }
    await routeClientsAlone([spec(0, ports)], proxies);
    const aim = (upstream: string, command: string) => () =>
      proxies.get(clientRoute(0, upstream))!.dropNextReply({ command, then: 'reset' });
    expect(aim('redis[0]', 'SET')).not.toThrow();
    expect(aim('zk[0]', 'create')).not.toThrow();
    expect(aim('etcd[0]', 'KV/Txn put')).not.toThrow();
    expect(aim('pg', 'pg_advisory_lock')).toThrow(/started without a protocol/);
  });

  it("gives the lock's Postgres sessions a framed route of their own only when asked, apart from the bank's", async () => {
    const shared = await TcpProxy.start({ targetPort: await namedServer('pg') });
    proxies.set('pg', shared);
    const withUrl = (slot: number) => {
      const s = spec(slot, { pg: shared.port, redis: 1, etcd: 2, zk: 3 });
      s.ctx.postgresUrl = `postgres://u:p@127.0.0.1:${shared.port}/bank?application_name=fencepost-lock-client-${slot}`;
      return s;
    };
    const plain = withUrl(0);
    await routeClientsAlone([plain], proxies);
    expect(clientRoutes(proxies, 0).has(LOCK_SESSIONS)).toBe(false);
    expect(new URL(plain.ctx.postgresUrl!).port).toBe(String(shared.port));

    const framed = withUrl(1);
    await routeClientsAlone([framed], proxies, { lockSessions: true });
    const route = clientRoutes(proxies, 1).get(LOCK_SESSIONS)!;
    const url = new URL(framed.ctx.postgresUrl!);
    expect(url.port).toBe(String(route.port));
    expect(url.searchParams.get('application_name')).toBe('fencepost-lock-client-1');
    expect(framed.pg.port).toBe(clientRoutes(proxies, 1).get('pg')!.port);
    expect(() => route.dropNextReply({ command: 'pg_advisory_unlock', then: 'keep-open' })).not.toThrow();
    expect(await greeting(route.port)).toBe('pg');
    // hold-request names its requests by RESP or ZooKeeper's packets: the lock-session route is not among them.
    expect([...framedRoutes(proxies, 1).keys()]).toEqual([]);
  });

  it("holding one client's route holds only what that client sends", async () => {
    const echo = net.createServer((socket) => socket.pipe(socket));
    servers.push(echo);
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const shared = await TcpProxy.start({ targetPort: (echo.address() as net.AddressInfo).port });
    proxies.set('pg', shared);
    const specs = [
      spec(0, { pg: shared.port, redis: 1, etcd: 2, zk: 3 }),
      spec(1, { pg: shared.port, redis: 1, etcd: 2, zk: 3 }),
    ];
    await routeClientsAlone(specs, proxies);
    // Endpoints that are not a shared proxy of the run stay direct.
    expect(specs[0].ctx.redis[0].port).toBe(1);
    expect(specs[0].ctx.zookeeper).toBe('127.0.0.1:3');

    clientRoutes(proxies, 0).get('pg')!.holdToServer();
    const held = sendTo(specs[0].pg.port!, 'write');
    const other = sendTo(specs[1].pg.port!, 'other');
    const route = clientRoutes(proxies, 0).get('pg')!;
    await eventually('the other client echoed', () => other() === 'other', 10_000);
    await eventually('the held write queued at the proxy', () => route.counters().queuedToServer > 0, 10_000);
    expect(other()).toBe('other');
    expect(held()).toBe('');
    expect(route.counters().queuedToServer).toBe('write'.length);
    route.heal();
    await eventually('the held write echoed after the heal', () => held() === 'write', 10_000);
    expect(held()).toBe('write');
  });
});
