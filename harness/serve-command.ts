import fs from 'node:fs';
import { pipeline } from 'node:stream';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Shutdown } from '../common/shutdown.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { OWNER_FILE, runOwner } from '../common/run-owner.ts';
import { hasResults, RUN_FILES, runPath } from '../store/run-dir.ts';
import { writeIndex } from '../report/index-page.ts';

/** What `fencepost serve` is run with (cli/commands/serve.ts parses it). */
export interface ServeConfig {
  readonly command: 'serve';
  readonly help: boolean;
  readonly resultsDir: string;
  /** The port asked for, or null for 8080-else-free. */
  readonly port: number | null;
}

/**
 * `serve`: the results folder over HTTP on 127.0.0.1 only (reports work from file:// too; this is for browsing
 * from another tab, or through an SSH tunnel). Port 8080 if free, else any free port; the URL is printed. The
 * index is rebuilt on a request for it (at most once a second), so new runs show up on refresh. Every local user
 * can reach 127.0.0.1, and serve reads as the harness's user, so it serves only what a reader needs (`servable`),
 * nothing of a run still going, and only to a Host of 127.0.0.1 or localhost.
 */
export const PREFERRED_PORT = 8080;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.xml': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/**
 * The pages are self-contained (inline script and style, data: images), so this is all they need; it stops any
 * future escaping bug from fetching another file of the same origin, from framing, and from posting anywhere.
 */
export const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': CSP,
  'referrer-policy': 'no-referrer',
} as const;

/** The pages we write: a run's report, the index, compare, the matrix and the nightly's comparison. */
const PAGE = /^(report|index|compare|matrix|comparison)[\w.-]*\.html$/;
/** A run's record and the nightly's machine-readable outputs. */
const RECORD =
  /^(history\.jsonl|results\.json|test\.json|matrix\.json|nightly[\w.-]*\.json|junit[\w.-]*\.xml|summary[\w.-]*\.md)$/;
/** Never served, at any depth: servers' folders (redis.conf holds requirepass), pid records, the clock shim. */
const PRIVATE_FOLDERS = new Set<string>([RUN_FILES.nodes, RUN_FILES.pids, RUN_FILES.clock]);

/**
 * Whether a reader may have the file at `segments` (its path inside the results folder): a list of what is served
 * rather than of what is not, so a file a later version adds (a secret, say) stays private until someone decides
 * otherwise. The run's secrets file matches nothing here.
 */
export function servable(segments: readonly string[]): boolean {
  const name = segments.at(-1);
  if (!name || segments.some((s) => s === '' || s.startsWith('.') || PRIVATE_FOLDERS.has(s))) return false;
  if (segments.length >= 2 && segments.at(-2) === RUN_FILES.logs) return /^[\w.-]+\.log$/.test(name);
  return PAGE.test(name) || RECORD.test(name);
}

export interface ResultsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * Whether `real` (inside `realRoot`) belongs to a run still going: one of its folders holds `pids/harness.owner`
 * naming a live process, and no results yet. Nothing of such a run is served — its secrets and servers are live.
 */
function inLiveRun(realRoot: string, real: string): boolean {
  for (let dir = path.dirname(real); inside(realRoot, dir); dir = path.dirname(dir)) {
    // A run writes its results last, after its servers are stopped and its secrets deleted: with it, the run is
    // over even while its harness goes on (a matrix or nightly runs its cells in one process).
    if (fs.existsSync(path.join(runPath(dir, 'pids'), OWNER_FILE)) && !hasResults(dir) && runOwner(dir) !== 'gone')
      return true;
    if (dir === realRoot) break;
  }
  return false;
}

/**
 * The Host names a page of ours is reached by. Anything else is DNS rebinding (a web page whose name now points at
 * 127.0.0.1) or a mistake: 421, before the disk is touched.
 */
function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const m = /^(127\.0\.0\.1|localhost)(?::(\d+))?$/i.exec(host);
  return m !== null && (m[2] === undefined || Number(m[2]) === port);
}

/**
 * The request's path as segments, decoded; null when it cannot be decoded. The path as sent, not normalised by a
 * URL parser (which would fold `//evil.example/..` into something else); an absolute-form target (`GET
 * http://host/x`) counts by its path only.
 */
function requestSegments(url: string | undefined): string[] | null {
  try {
    const target = url ?? '/';
    const raw = (target.startsWith('/') ? target : new URL(target).pathname).replace(/[?#].*$/s, '');
    // Split before decoding: an encoded slash or backslash is never a separator, and never a name either.
    return raw.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** Streams the file at `real` (already checked servable); false when it is not a regular file by the time it opens. */
async function sendFile(req: http.IncomingMessage, res: http.ServerResponse, real: string): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in after the stat must not block a thread-pool worker on open.
    handle = await fs.promises.open(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  const opened = await handle.stat().catch(() => null);
  if (!opened?.isFile()) {
    await handle.close().catch(() => undefined);
    return false;
  }
  res.writeHead(200, {
    'content-type': TYPES[path.extname(real)] ?? 'text/plain; charset=utf-8',
    'content-length': opened.size,
    ...HEADERS,
  });
  if (req.method === 'HEAD') {
    await handle.close().catch(() => undefined);
    res.end();
    return true;
  }
  // pipeline, not pipe: a reader who goes away mid-file (a closed tab, a cancelled load) destroys the stream and so
  // closes the file; pipe left it open until garbage collection, and Node warned (DEP0137) on serve's terminal.
  // Headers are out by now: a read error can only cut the answer short.
  pipeline(handle.createReadStream(), res, () => undefined);
  return true;
}

/** How often `GET /` may rebuild index.html (it reads every run's JSON): any local process can repeat the request. */
const INDEX_EVERY_MS = 1000;

/**
 * Rewrites index.html at most every INDEX_EVERY_MS; returns why no index can be served (none was ever written and
 * this rewrite failed), else null. The last index written still lists the runs: it is served rather than nothing
 * when a rewrite fails, and why is said once.
 */
function indexRefresher(root: string, realRoot: string, sayOnce: (line: string) => void): () => string | null {
  let indexAt = -Infinity;
  return () => {
    if (performance.now() - indexAt < INDEX_EVERY_MS) return null;
    const unreadable: string[] = [];
    try {
      writeIndex(root, unreadable);
      indexAt = performance.now();
    } catch (err) {
      sayOnce(`fencepost serve: could not rewrite the index (${(err as Error).message}); serving the last one`);
      if (!fs.existsSync(path.join(realRoot, 'index.html')))
        return `could not write the index: ${(err as Error).message}`;
    }
    for (const d of unreadable) sayOnce(`fencepost serve: left out of the index, not readable by us: ${d}`);
    return null;
  };
}

function handler(root: string, port: () => number): http.RequestListener {
  const realRoot = fs.realpathSync(root);
  const said = new Set<string>();
  const sayOnce = (line: string) => {
    if (said.has(line)) return;
    said.add(line);
    console.error(line);
  };
  const refreshIndex = indexRefresher(root, realRoot, sayOnce);
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'content-type': type, ...HEADERS });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!hostAllowed(req.headers.host, port())) return send(421, 'misdirected request: use 127.0.0.1 or localhost\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'GET only\n');
    // Anything not served is the same 404 with the same body: a 403 for a file outside the folder, or for a secret,
    // would tell a visitor which paths exist. The path is checked before the disk is touched (`..`, `%2e%2e`,
    // `%2f`, the list of what is served), then again after symlinks are resolved (results/latest is one).
    const notFound = () => send(404, 'not found\n');
    let segments = requestSegments(req.url);
    if (segments === null) return send(400, 'bad path\n');
    if (segments.some((s) => s === '..' || s === '.' || /[\\/\0]/.test(s))) return notFound();
    let trailingSlash = segments.at(-1) === '';
    if (trailingSlash) segments.pop();
    if (segments.length === 0 || (segments.length === 1 && segments[0] === 'index.html')) {
      const cannot = refreshIndex();
      if (cannot) return send(500, `${cannot}\n`);
      segments = ['index.html'];
      trailingSlash = false;
    }
    if (segments.some((s) => s === '')) return notFound();
    const file = path.join(realRoot, ...segments);
    if (!inside(realRoot, file)) return notFound();
    let real: string;
    let stat: fs.Stats;
    try {
      real = await fs.promises.realpath(file);
      if (!inside(realRoot, real)) return notFound();
      stat = await fs.promises.stat(real);
    } catch {
      return notFound();
    }
    const rel = path.relative(realRoot, real);
    const relSegments = rel === '' ? [] : rel.split(path.sep);
    if (stat.isDirectory()) {
      // A run folder goes to its report; no folder is listed (the index lists the runs).
      if (relSegments.some((s) => PRIVATE_FOLDERS.has(s)) || inLiveRun(realRoot, path.join(real, 'x')))
        return notFound();
      const hasReport = await fs.promises
        .stat(runPath(real, 'report'))
        .then((s) => s.isFile())
        .catch(() => false);
      if (!hasReport) return notFound();
      // Built from the resolved path, never from the request: a Location starting with `//` would leave the host.
      const here = `/${relSegments.map(encodeURIComponent).join('/')}${relSegments.length ? '/' : ''}`;
      res.writeHead(trailingSlash ? 302 : 301, { location: trailingSlash ? RUN_FILES.report : here, ...HEADERS });
      return void res.end();
    }
    // Both the name asked for and the file it resolves to must be on the list (a symlink named report.html
    // pointing at secrets.json is not served), and nothing of a live run is.
    if (trailingSlash || !stat.isFile() || !servable(segments) || !servable(relSegments)) return notFound();
    if (inLiveRun(realRoot, real)) return notFound();
    if (!(await sendFile(req, res, real))) return notFound();
  };
  return (req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', ...HEADERS });
        res.end(`internal error: ${(err as Error)?.message ?? String(err)}\n`);
      } else res.destroy();
    });
  };
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

/** Serves `root` on 127.0.0.1: `port` if given, else 8080 if free, else a free port. */
export async function startResultsServer(root: string, port?: number): Promise<ResultsServer> {
  fs.mkdirSync(root, { recursive: true });
  try {
    writeIndex(root);
  } catch (err) {
    // An unreadable folder under results (a lost+found, a root run's 0700 folder) must not stop serve starting.
    console.error(`fencepost: warning: could not write ${path.join(root, 'index.html')}: ${(err as Error).message}`);
  }
  let bound = 0;
  const server = http.createServer(handler(root, () => bound));
  // A malformed request is answered 400 by Node; a socket error (a reset mid-answer) must not reach the process.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  if (port !== undefined) bound = await listen(server, port);
  else {
    try {
      bound = await listen(server, PREFERRED_PORT);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (err as NodeJS.ErrnoException).code !== 'EACCES')
        throw err;
      bound = await listen(server, 0);
    }
  }
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs until Ctrl-C: the shutdown handler closes the server and exits. */
export async function serveCommand(config: Readonly<ServeConfig>, shutdown: Shutdown): Promise<number> {
  let served: ResultsServer;
  try {
    served = await startResultsServer(config.resultsDir, config.port ?? undefined);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (config.port !== null && (code === 'EADDRINUSE' || code === 'EACCES')) {
      throw new HarnessError(
        'bad-arguments',
        `serve: cannot listen on 127.0.0.1:${config.port} (${code === 'EADDRINUSE' ? 'in use' : 'not allowed'}).`,
        { hint: 'pick another --port, or leave it out to take 8080 or any free port' },
      );
    }
    throw err;
  }
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  shutdown.onInterrupt = 'stopping the results server';
  shutdown.add('close the results server', async () => {
    await served.close();
    closed();
  });
  console.log(`fencepost: serving ${config.resultsDir} at ${served.url}  (Ctrl-C to stop)`);
  await done;
  return EXIT.valid;
}
