/**
 * The Redis clients as the lock libraries' READMEs construct them, from the copy of the client each row pins in its
 * cached install (locks/npm-lock-cache.ts): `new Redis({ host })` for ioredis, `createClient()` then `connect()`
 * for node-redis — every other option at its default. So no command timeout and an offline queue: a command to a
 * paused master waits for it, one to a restarting master is queued and retried. That is what the READMEs' users run,
 * and several findings depend on it (a library that waits for every master's reply stalls while one is paused).
 * The harness's own rows use fail-fast clients instead (locks/redlock-npm/redlock-npm.ts says why); these don't.
 */
import type { Endpoint } from '../strategy.ts';

/** What the strategies use of an ioredis client (the library itself gets the client object). */
export interface IoredisClient {
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
export type IoredisConstructor = new (options: { host: string; port: number; password?: string }) => IoredisClient;

/**
 * `new Redis({ host, port, password })`. An `error` listener that drops the error is the one addition: without one
 * ioredis prints every reconnect failure to the client's log ("[ioredis] Unhandled error event"), thousands of lines
 * while a master is down; it changes nothing else (ioredis does not throw on an unlistened `error`).
 */
export function readmeIoredis(Redis: IoredisConstructor, { host, port, password }: Endpoint): IoredisClient {
  const client = new Redis({ host, port, ...(password ? { password } : {}) });
  client.on('error', () => {});
  return client;
}

/** What the strategies use of a node-redis client. */
export interface NodeRedisClient {
  connect(): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): NodeRedisClient;
  disconnect?(): Promise<void>;
  destroy?(): void;
  ping?(): Promise<string>;
}
export interface NodeRedisModule {
  createClient(options: { socket: { host: string; port: number }; password?: string }): NodeRedisClient;
}

/**
 * `createClient(...)`, an `error` listener, then `connect()`: node-redis's README attaches one in every example and
 * says "You **MUST** listen to `error` events. If a client doesn't have at least one `error` listener registered and
 * an `error` occurs, that error will be thrown and the Node.js process will exit" (README.md of redis 4.7.1, 6.4.0).
 */
export async function readmeNodeRedis(
  redis: NodeRedisModule,
  { host, port, password }: Endpoint,
): Promise<NodeRedisClient> {
  const client = redis.createClient({ socket: { host, port }, ...(password ? { password } : {}) });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Drop a node-redis client at once, whichever major it is (4: disconnect(), 5 and 6: destroy()). */
export function dropNodeRedis(client: NodeRedisClient): void {
  if (client.destroy) client.destroy();
  else void client.disconnect?.().catch(() => {});
}
