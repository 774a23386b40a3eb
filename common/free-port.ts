import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** One port for a server started later (a test's own Redis or Postgres): `freePorts(1)`. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/** How long a port handed to a server stays reserved for it: by then it listens there (or failed to start). */
export const RESERVATION_MS = 120_000;

/** The lowest port handed to servers: below it are the well-known and registered services people run. */
export const SERVER_PORT_LOW = 20_000;

export interface PortChoice {
  /** Inclusive port range to choose from. Default: SERVER_PORT_LOW up to just below the kernel's ephemeral range. */
  range?: [number, number];
  /** Where reservations are kept; `null`: none (only the bind test). Default: a folder of this user in the temp dir. */
  reservations?: string | null;
  /** Where the scan starts (an offset into the range); default random. */
  start?: number;
  now?: () => number;
}

/**
 * `n` distinct ports for the run's servers, each free on 127.0.0.1 when chosen and reserved for this run.
 *
 * A server binds its port some time after it is chosen (a JVM, seconds later), and in that window two things could
 * take it: the kernel, handing it out for a `bind(0)` or an outgoing connection (our own proxies and clients, or the
 * user's programs), and another fencepost run on the machine choosing at the same moment (`nightly --parallel`,
 * two users' runs). So ports come from below the kernel's ephemeral range (`ip_local_port_range`), which the kernel
 * never hands out on its own, and each is reserved by an exclusively created file named after it in a folder only
 * this user can write, expiring after RESERVATION_MS — by then the server listens there and its bind keeps it.
 * Measured failure this closes: in a `nightly --parallel=2`, a ZooKeeper node's client port refused connections
 * right after its ensemble answered ready. Each port is also bound once here (and held until all are chosen), so
 * a port anything listens on is skipped.
 */
export async function freePorts(n: number, choice: PortChoice = {}): Promise<number[]> {
  const [low, high] = choice.range ?? serverPortRange();
  const size = high - low + 1;
  if (n > size) throw new Error(`${n} ports wanted, ${size} in ${low}–${high}`);
  const dir = choice.reservations === undefined ? reservationDir() : choice.reservations;
  const now = choice.now ?? Date.now;
  if (dir) dropExpired(dir, now());
  const start = choice.start ?? Math.floor(Math.random() * size);
  const held: net.Server[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < size && ports.length < n; i++) {
      const port = low + ((start + i) % size);
      if (dir && !reserve(dir, port, now())) continue;
      const server = await listening(port);
      if (server) {
        held.push(server);
        ports.push(port);
      } else if (dir) fs.rmSync(path.join(dir, String(port)), { force: true });
    }
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
  if (ports.length < n) throw new Error(`only ${ports.length} of ${n} ports free in ${low}–${high}`);
  return ports;
}

/** SERVER_PORT_LOW up to the port below the kernel's ephemeral range (Linux: 32768 by default). */
export function serverPortRange(rangeFile = '/proc/sys/net/ipv4/ip_local_port_range'): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const [first] = fs.readFileSync(rangeFile, 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(first) && first > 0) ephemeralLow = first;
  } catch {
    // Not Linux: keep the IANA dynamic range's neighbour as the bound.
  }
  // A machine whose ephemeral range starts low leaves no room below it: then the registered range above 1024.
  return ephemeralLow - SERVER_PORT_LOW >= 1_000 ? [SERVER_PORT_LOW, ephemeralLow - 1] : [1_025, 65_535];
}

/** This user's reservation folder (0700, owned by them); null if it cannot be made ours, then only binds decide. */
function reservationDir(): string | null {
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  const dir = path.join(os.tmpdir(), `fencepost-ports-${uid ?? os.userInfo().username}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || (uid !== null && st.uid !== uid) || (st.mode & 0o077) !== 0) return null;
  } catch {
    return null;
  }
  return dir;
}

/** Claims `port` (an O_EXCL file); a claim older than RESERVATION_MS is taken over. */
function reserve(dir: string, port: number, at: number): boolean {
  const file = path.join(dir, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      fs.utimesSync(file, at / 1000, at / 1000);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      if (!expired(file, at)) return false;
      fs.rmSync(file, { force: true });
    }
  }
  return false;
}

function expired(file: string, at: number): boolean {
  try {
    return at - fs.statSync(file).mtimeMs > RESERVATION_MS;
  } catch {
    return true;
  }
}

function dropExpired(dir: string, at: number): void {
  for (const name of fs.readdirSync(dir)) {
    if (/^\d+$/.test(name) && expired(path.join(dir, name), at)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** A server listening on 127.0.0.1:port, or null if the port is taken. */
function listening(port: number): Promise<net.Server | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}
