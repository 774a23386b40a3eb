import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Config } from './options.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { escapeHtml as h } from '../report/html.ts';
import { writeIndex } from '../report/index-page.ts';

/**
 * `serve`: the results folder over HTTP on 127.0.0.1 only (reports work from file:// too; this is for browsing
 * from another tab, or through an SSH tunnel). Port 8080 if free, else any free port; the URL is printed. The
 * index is rewritten on every request for it, so new runs show up on refresh.
 */
export const PREFERRED_PORT = 8080;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.edn': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export interface ResultsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function listing(dir: string, urlPath: string): string {
  const entries = fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(
      (e) =>
        `<li><a href="${h(encodeURIComponent(e.name) + (e.isDirectory() ? '/' : ''))}">${h(e.name)}${e.isDirectory() ? '/' : ''}</a></li>`,
    );
  return `<!doctype html><meta charset="utf-8"><title>${h(urlPath)}</title><body style="font:13px system-ui;margin:20px"><h1 style="font-size:16px">${h(urlPath)}</h1><p><a href="/">all runs</a></p><ul>${entries.join('')}</ul></body>`;
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

function handler(root: string): http.RequestListener {
  const realRoot = fs.realpathSync(root);
  return (req, res) => {
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'GET only\n');
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    } catch {
      return send(400, 'bad path\n');
    }
    if (urlPath === '/' || urlPath === '/index.html') {
      try {
        writeIndex(root);
      } catch (err) {
        return send(500, `could not write the index: ${(err as Error).message}\n`);
      }
    }
    // Anything not served is the same 404 with the same body: a 403 for a file outside the folder would tell a
    // visitor which paths exist on the machine. The joined path is checked before the disk is touched
    // (`..`, `%2e%2e`), then again after symlinks are resolved (results/latest is one; a link out is not served).
    const notFound = () => send(404, 'not found\n');
    const file = path.join(realRoot, urlPath === '/' ? 'index.html' : urlPath);
    if (!inside(realRoot, file)) return notFound();
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch {
      return notFound();
    }
    if (!inside(realRoot, real)) return notFound();
    const stat = fs.statSync(real);
    if (stat.isDirectory()) {
      if (!urlPath.endsWith('/')) {
        res.writeHead(301, { location: `${encodeURI(urlPath)}/` });
        return res.end();
      }
      if (fs.existsSync(path.join(real, 'report.html'))) {
        res.writeHead(302, { location: 'report.html' });
        return res.end();
      }
      return send(200, listing(real, urlPath), TYPES['.html']);
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(real)] ?? 'application/octet-stream',
      'content-length': stat.size,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(real).pipe(res);
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
  writeIndex(root);
  const server = http.createServer(handler(root));
  let bound: number;
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
export async function serveCommand(config: Readonly<Config>, shutdown: Shutdown): Promise<number> {
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
