import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunDir } from '../test/support/run-dirs.ts';
import { writeReport } from '../report/report.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { resolveConfig } from './options.ts';
import { Shutdown } from '../common/shutdown.ts';
import { serveCommand, startResultsServer, type ResultsServer } from './serve-command.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-serve-'));
let server: ResultsServer;
let run: string;

beforeAll(async () => {
  run = writeRunDir(root, 'redis', '2026-11-29T08-00-00.000Z', { fenced: false });
  writeReport(run);
  fs.symlinkSync(path.relative(root, run), path.join(root, 'latest'));
  fs.writeFileSync(path.join(os.tmpdir(), 'fencepost-serve-secret.txt'), 'secret');
  fs.symlinkSync(path.join(os.tmpdir(), 'fencepost-serve-secret.txt'), path.join(root, 'escape.txt'));
  server = await startResultsServer(root, 0);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(path.join(os.tmpdir(), 'fencepost-serve-secret.txt'), { force: true });
});

describe('the results server', () => {
  it('listens on 127.0.0.1 and serves a fresh index at /', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    writeRunDir(root, 'etcd', '2026-11-29T09-00-00.000Z', { fenced: true });
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('redis/2026-11-29T08-00-00.000Z/report.html');
    expect(html).toContain('etcd'); // written after the server started: the index is rebuilt per request
  });

  it('serves reports, sends a run dir to its report, and follows the latest link', async () => {
    const report = await fetch(`${server.url}redis/2026-11-29T08-00-00.000Z/report.html`);
    expect(report.status).toBe(200);
    expect(await report.text()).toContain('<div class="badge">INVALID</div>');
    const dir = await fetch(`${server.url}latest/`, { redirect: 'manual' });
    expect(dir.status).toBe(302);
    expect(dir.headers.get('location')).toBe('report.html');
    expect((await fetch(`${server.url}latest/results.json`)).status).toBe(200);
  });

  it('serves nothing outside the results folder, and only GET/HEAD', async () => {
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
  });

  it('answers the same 404 for every path it does not serve, whether the file exists on the machine or not', async () => {
    // fetch() would normalise a literal `..` away; a raw request sends the path as written, as an attacker would.
    const raw = (target: string) =>
      new Promise<{ status: number; body: string; type: string | undefined }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: server.port, path: target }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body, type: res.headers['content-type'] }));
          })
          .on('error', reject);
      });
    const missing = await raw('/nope.html');
    expect(missing).toEqual({ status: 404, body: 'not found\n', type: 'text/plain; charset=utf-8' });
    const outside = [
      '/escape.txt', // a symlink out of the folder, to a file that exists
      '/../../../../etc/passwd', // exists
      '/../../../../etc/no-such-file-fencepost',
      '/..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/no-such-file-fencepost',
      '/%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2Fetc', // a directory that exists: no redirect either
      `/%2e%2e/${path.basename(root)}-not-there/x`,
    ];
    for (const target of outside) expect({ target, ...(await raw(target)) }).toEqual({ target, ...missing });
    expect(fs.existsSync('/etc/passwd')).toBe(true); // the "exists" cases above really exist
  });
});

describe('npm run jepsen -- serve --port', () => {
  it('listens on the port asked for', async () => {
    const probe = await startResultsServer(root, 0); // a port that is free right now
    await probe.close();
    const shutdown = new Shutdown();
    const running = serveCommand(resolveConfig(['serve', `--port=${probe.port}`, `--results=${root}`]), shutdown);
    let res: Response | undefined;
    for (let i = 0; i < 50 && !res; i++)
      res = await fetch(`http://127.0.0.1:${probe.port}/`).catch(
        () => new Promise<undefined>((r) => setTimeout(() => r(undefined), 20)),
      );
    expect(res?.status).toBe(200);
    await shutdown.runAll();
    expect(await running).toBe(EXIT.valid);
  });

  it('a port in use is a bad argument (exit 254) that says what to do, not a crash or another port', async () => {
    const err = await serveCommand(
      resolveConfig(['serve', `--port=${server.port}`, `--results=${root}`]),
      new Shutdown(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    expect((err as HarnessError).message).toBe(`serve: cannot listen on 127.0.0.1:${server.port} (in use).`);
    expect((err as HarnessError).hint).toMatch(/pick another --port/);
  });

  it('rejects a port out of range before anything starts', () => {
    expect(() => resolveConfig(['serve', '--port=70000'])).toThrow(/--port must be between 1 and 65535, got 70000/);
  });
});
