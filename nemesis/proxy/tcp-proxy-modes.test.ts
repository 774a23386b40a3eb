import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.ts';
import { TcpProxy, type TcpProxyOptions } from './tcp-proxy.ts';

/**
 * The proxy's modes beside partition and latency, against an in-process echo server on 127.0.0.1: what the client
 * sends comes back byte for byte, so the counters can be checked against what each side wrote and read.
 */

const PING = '*1\r\n$4\r\nPING\r\n'; // 14 bytes
const SET = '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n'; // 27 bytes
/** How long to wait before asserting that nothing arrived: a hung connection wrongly connected would have by then. */
const NOT_CONNECTED_WITHIN_MS = 300;
/** The slice's gap, and so the least time three pieces take: a lower bound, which load only lengthens. */
const SLICE_DELAY_MS = 50;
const WAIT_MS = 5_000;

const closers: Array<() => unknown> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('TcpProxy modes', () => {
  it('partition and hold-to-server, as before: held, counted, delivered in order on heal', async () => {
    const { echo, proxy, client } = await setUp();
    proxy.partition();
    client.socket.write('one');
    await eventually('held by the partition', () => proxy.counters().queuedToServer === 3, WAIT_MS);
    const waiting = await rawConnect(proxy.port); // accepted, connected upstream only at heal
    waiting.socket.write('two');
    await eventually('both held', () => proxy.counters().heldBytes === 6, WAIT_MS);
    expect(echo.connections()).toBe(1);
    proxy.heal();
    await client.waitFor('one');
    await waiting.waitFor('two');

    proxy.holdToServer();
    client.socket.write('three');
    await eventually('held toward the server', () => proxy.counters().queuedToServer === 5, WAIT_MS);
    expect(echo.received()).not.toContain('three');
    proxy.heal();
    await client.waitFor('onethree');
    expect(proxy.counters()).toMatchObject({ heldToServer: 11, heldToClient: 0, droppedToServer: 0 });
  });

  it('one-way: requests reach the server, the replies wait at the proxy until heal, then arrive in order', async () => {
    const { echo, proxy, client } = await setUp();
    proxy.oneWay();
    expect(proxy.mode).toEqual({ kind: 'one-way', replies: 'hold' });
    client.socket.write('hello');
    await eventually('the echo server got the request', () => echo.received() === 'hello', WAIT_MS);
    // The echo went back at once; it is in the proxy's queue, so it has not reached the client.
    await eventually('the reply held at the proxy', () => proxy.counters().queuedToClient === 5, WAIT_MS);
    expect(client.received()).toBe('');
    expect(proxy.counters()).toMatchObject({ bytesToServer: 5, bytesToClient: 0, heldToClient: 5, heldBytes: 5 });
    client.socket.write(' again');
    await eventually('the second request', () => echo.received() === 'hello again', WAIT_MS);

    proxy.heal();
    await client.waitFor('hello again');
    expect(proxy.counters()).toMatchObject({ bytesToClient: 11, queuedToClient: 0, droppedToClient: 0 });
  });

  it('one-way with drop: n request bytes delivered, their m reply bytes dropped, later replies flow', async () => {
    const { echo, proxy, client } = await setUp();
    proxy.oneWay('drop');
    client.socket.write('abc');
    await eventually('the reply dropped', () => proxy.counters().droppedToClient === 3, WAIT_MS);
    client.socket.write('defgh');
    await eventually('the second reply dropped', () => proxy.counters().droppedToClient === 8, WAIT_MS);
    expect(echo.received()).toBe('abcdefgh');
    expect(proxy.counters()).toMatchObject({
      bytesToServer: 8,
      bytesToClient: 0,
      droppedToServer: 0,
      queuedToClient: 0,
    });

    proxy.heal();
    client.socket.write('x');
    await client.waitFor('x');
    expect(client.received()).toBe('x'); // what was dropped never arrives
  });

  it('resetConnections(): the client sees ECONNRESET', async () => {
    const { proxy, client } = await setUp();
    client.socket.write('hi');
    await client.waitFor('hi');
    proxy.resetConnections();
    expect(await client.error).toMatchObject({ code: 'ECONNRESET' });
    expect(proxy.counters()).toMatchObject({ resets: 1, open: 0 });
  });

  it('reset-after: a connection is reset once k bytes have passed; the server got exactly those', async () => {
    const { echo, proxy, client } = await setUp();
    client.socket.write('12');
    await client.waitFor('12');
    proxy.resetAfter(4, 'to-server');
    client.socket.write('abcdefgh');
    expect(await client.error).toMatchObject({ code: 'ECONNRESET' });
    await eventually('the server saw the four bytes', () => echo.received() === '12abcd', WAIT_MS);
    expect(proxy.counters()).toMatchObject({ bytesToServer: 6, resets: 1 });

    const next = await rawConnect(proxy.port); // the mode holds for new connections too, counted from their start
    next.socket.write('wxyz!');
    expect(await next.error).toMatchObject({ code: 'ECONNRESET' });
    expect(proxy.counters()).toMatchObject({ bytesToServer: 10, resets: 2 });
  });

  it('reset-after toward the client: the client gets exactly k bytes, then the connection is gone', async () => {
    const { echo, proxy, client } = await setUp();
    proxy.resetAfter(3, 'to-client');
    client.socket.write('abcdef');
    await client.closed; // an EOF or ECONNRESET, as the RST met the unread bytes or not (proxy-mode.ts)
    expect(client.received()).toBe('abc');
    expect(echo.received()).toBe('abcdef');
    expect(proxy.counters()).toMatchObject({ bytesToClient: 3, resets: 1 });
  });

  it('accept-and-hang: connect succeeds, nothing reaches the server, and heal does not revive the hung one', async () => {
    const { echo, proxy } = await setUp();
    expect(echo.connections()).toBe(1); // setUp's own client
    proxy.acceptAndHang();
    const hung = await rawConnect(proxy.port);
    hung.socket.write('ping');
    await eventually('the bytes thrown away', () => proxy.counters().droppedToServer === 4, WAIT_MS);
    expect(proxy.counters()).toMatchObject({ hung: 1, open: 2 });
    // An absence, so a time: a hung connection that was wrongly connected upstream would have shown up by now.
    await sleep(NOT_CONNECTED_WITHIN_MS);
    expect(echo.connections()).toBe(1);
    expect(echo.received()).toBe('');

    proxy.heal();
    const fresh = await rawConnect(proxy.port);
    fresh.socket.write('fresh');
    await fresh.waitFor('fresh');
    hung.socket.write('more');
    await eventually('the hung connection still drops', () => proxy.counters().droppedToServer === 8, WAIT_MS);
    expect(echo.received()).toBe('fresh');
    expect(hung.received()).toBe('');
  });

  it('drop-next-reply (RESP): of two pipelined commands only the aimed SET loses its reply; heal resets', async () => {
    const { echo, proxy, client } = await setUp({ protocol: 'resp' });
    proxy.dropNextReply({ command: 'set', then: 'keep-open' });
    client.socket.write(PING + SET); // a heartbeat first: not the aimed request
    await eventually('the SET at the server', () => echo.received() === PING + SET, WAIT_MS);
    await eventually('the SET reply dropped', () => proxy.counters().droppedToClient === SET.length, WAIT_MS);
    await client.waitFor(PING);
    expect(client.received()).toBe(PING);
    expect(proxy.droppedReplies()).toEqual([
      {
        connection: 1,
        request: { start: 14, end: 41, name: 'SET', detail: 'k', value: 'v' },
        reply: { start: 14, end: 41 },
        atMs: expect.any(Number),
      },
    ]);

    // Kept open as a black hole: what the client sends next goes nowhere, so no later reply can be misread.
    client.socket.write(PING);
    await eventually('the next PING dropped', () => proxy.counters().droppedToServer === PING.length, WAIT_MS);
    expect(echo.received()).toBe(PING + SET);
    proxy.heal();
    expect(await client.error).toMatchObject({ code: 'ECONNRESET' });
    expect(proxy.counters().resets).toBe(1);
  });

  it("drop-next-reply with no command aims past the connection's own chatter (INFO, PING) at the next request", async () => {
    // Red before: a plugin's aim took the first request whatever it was — an INFO's reply dropped, no key to read back.
    const { echo, proxy, client } = await setUp({ protocol: 'resp' });
    const INFO = '*1\r\n$4\r\nINFO\r\n';
    proxy.dropNextReply({ except: ['INFO', 'PING'], then: 'keep-open' });
    client.socket.write(INFO + PING + SET);
    await eventually('all at the server', () => echo.received() === INFO + PING + SET, WAIT_MS);
    await eventually('the SET reply dropped', () => proxy.counters().droppedToClient === SET.length, WAIT_MS);
    await client.waitFor(INFO + PING);
    expect(proxy.droppedReplies().map((d) => d.request.name)).toEqual(['SET']);
  });

  it("drop-next-reply aimed at DEL: a renewal's script (it extends) passes, the release's (it deletes) loses its reply", async () => {
    const { echo, proxy, client } = await setUp({ protocol: 'resp' });
    const evalOf = (script: string) =>
      `*5\r\n$4\r\nEVAL\r\n$${script.length}\r\n${script}\r\n$1\r\n1\r\n$4\r\nlock\r\n$2\r\nme\r\n`;
    const renew = evalOf(
      'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end',
    );
    const release = evalOf('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end');
    proxy.dropNextReply({ command: 'DEL', then: 'keep-open' });
    client.socket.write(renew + release);
    await eventually('both at the server', () => echo.received() === renew + release, WAIT_MS);
    await eventually('the release reply dropped', () => proxy.counters().droppedToClient === release.length, WAIT_MS);
    await client.waitFor(renew);
    expect(client.received()).toBe(renew);
    expect(proxy.droppedReplies().map((d) => d.request.name)).toEqual(['EVAL']);
    expect(proxy.droppedReplies()[0].request.start).toBe(renew.length);
  });

  it('drop-next-reply drops the aimed reply exactly when it reaches the proxy one byte at a time', async () => {
    const { echo, proxy, client } = await setUp({ protocol: 'resp' }, { byteByByte: true });
    proxy.dropNextReply({ command: 'SET', then: 'keep-open' });
    client.socket.write(PING + SET);
    await eventually('the SET reply dropped', () => proxy.counters().droppedToClient === SET.length, WAIT_MS);
    expect(echo.received()).toBe(PING + SET);
    expect(client.received()).toBe(PING);
    expect(proxy.droppedReplies().map((d) => d.reply)).toEqual([{ start: 14, end: 41 }]);
  });

  it('drop-next-reply then reset: the reply before the aimed one arrives, then the reset; one shot only', async () => {
    const { echo, proxy, client } = await setUp({ protocol: 'resp' });
    proxy.dropNextReply({ command: 'SET', then: 'reset' });
    client.socket.write(PING + SET);
    // The RST lands with the PING's reply still unread, which Node then reports as an EOF, not ECONNRESET.
    await client.closed;
    expect(echo.received()).toBe(PING + SET);
    expect(client.received()).toBe(PING);
    expect(proxy.counters()).toMatchObject({ droppedToClient: SET.length, resets: 1 });

    const next = await rawConnect(proxy.port); // the shot is spent: the next request is answered
    next.socket.write(SET);
    await next.waitFor(SET);
    expect(proxy.droppedReplies()).toHaveLength(1);
  });

  it('hold-next-request (RESP): the GET before it is answered, the aimed SET and all after it wait for heal', async () => {
    const { echo, proxy, client } = await setUp({ protocol: 'resp' });
    const GET = '*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'; // 20 bytes
    proxy.holdNextRequest('set');
    client.socket.write(GET);
    await client.waitFor(GET);
    // The SET cut in two: it is named only once whole, and none of it reaches the server.
    client.socket.write(SET.slice(0, 10));
    client.socket.write(SET.slice(10) + PING);
    await eventually('the SET held', () => proxy.heldRequests().length === 1, WAIT_MS);
    await eventually('everything from the SET on queued', () => proxy.counters().queuedToServer === 41, WAIT_MS);
    expect(echo.received()).toBe(GET);
    expect(proxy.heldRequests()).toEqual([
      {
        connection: 1,
        request: { start: 20, end: 47, name: 'SET', detail: 'k', value: 'v' },
        atMs: expect.any(Number),
      },
    ]);
    // Another connection is not held: the shot is spent on the first SET.
    const other = await rawConnect(proxy.port);
    other.socket.write(SET);
    await other.waitFor(SET);

    proxy.heal();
    await client.waitFor(GET + SET + PING);
    expect(echo.received()).toBe(GET + SET + SET + PING);
    expect(proxy.counters()).toMatchObject({ heldToServer: 41, queuedToServer: 0, droppedToServer: 0 });
  });

  it('refuses drop-next-reply where it cannot frame requests, naming why; etcd gRPC is framed', async () => {
    const { proxy } = await setUp({ protocol: 'etcd-grpc' });
    expect(() => proxy.dropNextReply({ command: 'KV/Txn put', then: 'reset' })).not.toThrow();
    const { proxy: bare } = await setUp();
    expect(() => bare.dropNextReply({ then: 'reset' })).toThrow(/started without a protocol/);
    expect(() => bare.holdNextRequest('SET')).toThrow(/hold-next-request aims at one request/);
    expect(bare.mode).toEqual({ kind: 'forward' });
  });

  it('slice: delivers in pieces of n bytes with the delay between, in order', async () => {
    const { proxy, client } = await setUp();
    proxy.slice(2, SLICE_DELAY_MS, 'to-client');
    const t0 = performance.now();
    client.socket.write('abcdef');
    await client.waitFor('abcdef');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * SLICE_DELAY_MS); // three pieces, two gaps
    expect(proxy.counters()).toMatchObject({ bytesToClient: 6, heldToClient: 6, heldToServer: 0 });
    expect(() => proxy.slice(0, 1)).toThrow(RangeError);
  });

  it('bandwidth: 200 bytes at 1000 B/s take about 200 ms', async () => {
    const { proxy, client } = await setUp();
    proxy.bandwidth(1_000, 'to-client');
    const t0 = performance.now();
    client.socket.write('x'.repeat(200));
    await client.waitFor('x'.repeat(200));
    // Twenty 10-byte writes 10 ms apart: the last leaves 190 ms after the first.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });
});

// ---- helpers -------------------------------------------------------------------------------------

interface Echo {
  port: number;
  received(): string;
  connections(): number;
}

/**
 * The gap between the byte-by-byte echo's writes: a timer, so each byte is read by the proxy (in the event loop's
 * poll phase) before the next is written (in a later timers phase) — the reply reaches the proxy cut at every byte.
 */
const BYTE_GAP_MS = 1;

async function echoServer(options: { byteByByte?: boolean } = {}): Promise<Echo> {
  let received = '';
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    connections += 1;
    sockets.add(socket);
    let writing = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!options.byteByByte) socket.write(chunk);
      else
        writing = writing.then(async () => {
          for (const byte of chunk) {
            socket.write(Buffer.from([byte]));
            await sleep(BYTE_GAP_MS);
          }
        });
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as net.AddressInfo).port, received: () => received, connections: () => connections };
}

async function setUp(options: Omit<TcpProxyOptions, 'targetPort'> = {}, echoOptions: { byteByByte?: boolean } = {}) {
  const echo = await echoServer(echoOptions);
  const proxy = await TcpProxy.start({ targetPort: echo.port, ...options });
  closers.push(() => proxy.close());
  const client = await rawConnect(proxy.port);
  await eventually('the proxy connected upstream', () => echo.connections() === 1, WAIT_MS);
  return { echo, proxy, client };
}

interface Raw {
  socket: net.Socket;
  received(): string;
  waitFor(text: string): Promise<void>;
  /** The first error the socket had (ECONNRESET when the proxy reset it). */
  error: Promise<NodeJS.ErrnoException>;
  closed: Promise<void>;
}

function rawConnect(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    closers.push(() => socket.destroy());
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      const error = new Promise<NodeJS.ErrnoException>((r) => socket.once('error', r));
      const closed = new Promise<void>((r) => socket.once('close', () => r()));
      resolve({
        socket,
        received: () => data,
        error,
        closed,
        waitFor: async (text) => {
          const arrived = () => data.includes(text) || Promise.reject(new Error(`got ${JSON.stringify(data)}`));
          await eventually(`${JSON.stringify(text)} through the proxy`, arrived, WAIT_MS, 10);
        },
      });
    });
  });
}
