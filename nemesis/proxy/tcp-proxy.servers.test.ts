import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../common/free-port.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { eventually } from '../../test/support/eventually.ts';

let dir: string;
const servers: ChildProcess[] = [];
const proxies: TcpProxy[] = [];
const clients: Redis[] = [];
const sockets: net.Socket[] = [];
let portA: number;
let portB: number;
let directA: Redis;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fencepost-proxy-'));
  [portA, portB] = await Promise.all([startRedis(), startRedis()]);
  directA = redis(portA);
  await directA.set('server', 'A');
  await redis(portB).set('server', 'B');
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const c of clients) c.disconnect();
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(servers.map(stop));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('TcpProxy', () => {
  it('refuses any target but 127.0.0.1', async () => {
    await expect(TcpProxy.start({ targetHost: '10.0.0.1', targetPort: portA })).rejects.toThrow(/127\.0\.0\.1/);
    await expect(TcpProxy.start({ targetHost: 'localhost', targetPort: portA })).rejects.toThrow(/refusing/);
    await expect(TcpProxy.start({ targetPort: 0 })).rejects.toThrow(RangeError);
  });

  it('forwards commands and counts bytes each way', async () => {
    const proxy = await startProxy(portA);
    expect(proxy.port).not.toBe(portA);
    expect(proxy.mode).toEqual({ kind: 'forward' });
    const client = redis(proxy.port);
    expect(await client.ping()).toBe('PONG');
    expect(await client.get('server')).toBe('A');
    const c = proxy.counters();
    expect(c.connections).toBe(1);
    expect(c.open).toBe(1);
    expect(c.bytesToServer).toBeGreaterThan(0);
    expect(c.bytesToClient).toBeGreaterThan(0);
  });

  it('holds traffic during a partition, holds new connections unconnected, and delivers in order on heal', async () => {
    const proxy = await startProxy(portA);
    const client = redis(proxy.port, { commandTimeout: 500 });
    expect(await client.ping()).toBe('PONG');
    const serverSideBefore = await connectedClients(directA);

    proxy.partition();
    expect(proxy.mode).toEqual({ kind: 'partition' });
    await expect(client.ping()).rejects.toThrow(/timed out/i);

    const raw = await rawConnect(proxy.port); // accepted: the client cannot tell a partition from a slow server
    raw.socket.write('PING\r\n');
    await eventually(
      'the raw PING held at the proxy',
      () => proxy.counters().heldBytes === 14 + 'PING\r\n'.length,
      5_000,
    );
    expect(raw.received()).toBe('');
    expect(await connectedClients(directA)).toBe(serverSideBefore); // no upstream connection yet
    const toServerDuringPartition = proxy.counters().bytesToServer;
    // What the partition held is counted: the client's timed-out PING (ioredis: `*1\r\n$4\r\nping\r\n`, 14 bytes)
    // and the raw PING: the fault's evidence that it held real traffic.
    expect(proxy.counters().heldBytes).toBe(14 + 'PING\r\n'.length);

    proxy.heal();
    await raw.waitFor('+PONG\r\n');
    expect(proxy.counters().bytesToServer).toBeGreaterThan(toServerDuringPartition);
    // The timed-out PING was delivered late and its reply consumed in order: the next reply is GET's own.
    expect(await client.get('server')).toBe('A');
    expect(await client.ping()).toBe('PONG');
  });

  it('delays each direction by the latency and never reorders when the latency drops', async () => {
    const proxy = await startProxy(portA);
    const client = redis(proxy.port);
    expect(await client.ping()).toBe('PONG');

    proxy.latency(200);
    expect(proxy.mode).toEqual({ kind: 'latency', ms: 200 });
    const t0 = performance.now();
    expect(await client.ping()).toBe('PONG');
    // One-way latency: the request and the reply are each held 200 ms (a little slack for timers).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(380);
    // Both were delayed, and counted: the PING (14 bytes) and its +PONG reply (7).
    expect(proxy.counters().heldBytes).toBe(14 + 7);

    const raw = await rawConnect(proxy.port);
    proxy.latency(300);
    raw.socket.write('ECHO first\r\n');
    // Read on its own before the next is written, so the two commands are two chunks with different due times.
    await eventually(
      'the first ECHO held',
      () => proxy.counters().heldBytes === 14 + 7 + 'ECHO first\r\n'.length,
      5_000,
    );
    proxy.heal();
    raw.socket.write('ECHO second\r\n');
    await raw.waitFor('$6\r\nsecond\r\n');
    expect(raw.received()).toBe('$5\r\nfirst\r\n$6\r\nsecond\r\n');
  });

  it('holds what clients send, counted and in order, while replies still flow; delivers it on heal', async () => {
    const proxy = await startProxy(portA);
    const raw = await rawConnect(proxy.port);
    raw.socket.write('SUBSCRIBE news\r\n');
    await raw.waitFor('subscribe\r\n$4\r\nnews\r\n:1\r\n');

    proxy.holdToServer();
    expect(proxy.mode).toEqual({ kind: 'hold-to-server' });
    raw.socket.write('PING late\r\n');
    await eventually('PING late queued', () => proxy.counters().queuedToServer === 'PING late\r\n'.length, 5_000);
    expect(proxy.counters().queuedToServer).toBe('PING late\r\n'.length);
    expect(raw.received()).not.toContain('pong');
    // The server → client direction is open: a message published meanwhile reaches the subscriber.
    await directA.publish('news', 'meanwhile');
    await raw.waitFor('$9\r\nmeanwhile\r\n');

    const held = await rawConnect(proxy.port); // a new connection is connected upstream, its bytes held too
    held.socket.write('PING\r\n');
    const both = 'PING late\r\n'.length + 'PING\r\n'.length;
    await eventually('the second PING queued', () => proxy.counters().queuedToServer === both, 5_000);
    expect(held.received()).toBe('');
    expect(proxy.counters().queuedToServer).toBe('PING late\r\n'.length + 'PING\r\n'.length);
    expect(proxy.counters().heldBytes).toBe('PING late\r\n'.length + 'PING\r\n'.length);

    proxy.heal();
    await raw.waitFor('$4\r\npong\r\n$4\r\nlate\r\n');
    await held.waitFor('+PONG\r\n');
    expect(proxy.counters().queuedToServer).toBe(0);
  });

  it('retargets new and held connections, and resets old ones so clients reconnect to the new target', async () => {
    const proxy = await startProxy(portA);
    const old = redis(proxy.port);
    expect(await old.get('server')).toBe('A');

    proxy.partition();
    const held = await rawConnect(proxy.port);
    held.socket.write('GET server\r\n');
    proxy.setTarget(portB);
    expect(proxy.target).toEqual({ host: '127.0.0.1', port: portB });
    proxy.heal();
    await held.waitFor('$1\r\nB\r\n'); // connected at heal, to the target of that moment

    expect(await redis(proxy.port).get('server')).toBe('B');
    expect(await old.get('server')).toBe('A'); // established connections keep their server

    const closed = new Promise((resolve) => old.once('close', resolve));
    proxy.resetConnections();
    await closed;
    expect(await old.get('server')).toBe('B'); // ioredis reconnected through the proxy
  });

  it('closes a client whose upstream refuses, like a refused connection', async () => {
    const proxy = await startProxy(await freePort()); // nothing listens there
    const raw = await rawConnect(proxy.port);
    await raw.closed;
    expect(proxy.counters()).toMatchObject({ upstreamFailures: 1, open: 0 });
  });

  it('close() stops listening and drops every connection', async () => {
    const proxy = await TcpProxy.start({ targetPort: portA });
    const raw = await rawConnect(proxy.port);
    raw.socket.write('PING\r\n');
    await raw.waitFor('+PONG\r\n');
    await proxy.close();
    await raw.closed;
    expect(proxy.counters().open).toBe(0);
    await expect(rawConnect(proxy.port)).rejects.toThrow(/ECONNREFUSED/);
    await proxy.close(); // idempotent
    expect(() => proxy.partition()).toThrow(/closed/);
  });
});

// ---- helpers -------------------------------------------------------------------------------------

async function startProxy(targetPort: number): Promise<TcpProxy> {
  const proxy = await TcpProxy.start({ targetPort });
  proxies.push(proxy);
  return proxy;
}

function redis(port: number, options: { commandTimeout?: number } = {}): Redis {
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, ...options });
  client.on('error', () => {}); // resets are the point of some tests; ioredis reconnects by itself
  clients.push(client);
  return client;
}

async function connectedClients(direct: Redis): Promise<number> {
  const info = await direct.info('clients');
  return Number(/connected_clients:(\d+)/.exec(info)?.[1]);
}

interface Raw {
  socket: net.Socket;
  received(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  closed: Promise<void>;
}

function rawConnect(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.on('error', () => {});
      resolve({
        socket,
        received: () => data,
        closed,
        waitFor: async (text, timeoutMs = 5_000) => {
          const arrived = () => data.includes(text) || Promise.reject(new Error(`got ${JSON.stringify(data)}`));
          await eventually(`${JSON.stringify(text)} through the proxy`, arrived, timeoutMs, 10);
        },
      });
    });
  });
}

/** Deadlines, not waits: how long redis-server may take to say it is ready, and to exit on SIGTERM. */
const REDIS_READY_MS = 10_000;
const STOP_GRACE_MS = 5_000;

async function startRedis(): Promise<number> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  servers.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server on ${port} not ready after 10 s:\n${output}`)),
      REDIS_READY_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited (${code ?? signal}):\n${output}`));
    });
  });
  return port;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
