import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunDir } from '../test/support/run-dirs.ts';
import { writeReport } from '../report/report.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { parseCommandLine } from '../cli/command-line.ts';
import { Shutdown } from '../common/shutdown.ts';
import { claimRun } from '../common/run-owner.ts';
import { CSP, serveCommand, startResultsServer, type ResultsServer } from './serve-command.ts';
import { eventually } from '../test/support/eventually.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-serve-'));
let server: ResultsServer;
let run: string;
let live: string;

/** A request as written (fetch() would normalise `..` and set its own Host). */
function raw(target: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; type: string | undefined; location: string | undefined }>(
    (resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: server.port, path: target, headers }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              body,
              type: res.headers['content-type'],
              location: res.headers.location,
            }),
          );
        })
        .on('error', reject);
    },
  );
}

/** What a run folder holds that no reader may have: the passwords, a server's config, pid records, the clock shim. */
function plantPrivateFiles(dir: string): void {
  fs.writeFileSync(path.join(dir, 'secrets.json'), '{"redis":"hunter2"}', { mode: 0o600 });
  fs.mkdirSync(path.join(dir, 'nodes', 'redis0'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'nodes', 'redis0', 'redis.conf'), 'requirepass hunter2\n');
  fs.writeFileSync(path.join(dir, 'nodes', 'redis0', 'report.html'), 'requirepass hunter2\n');
  fs.mkdirSync(path.join(dir, 'pids'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pids', 'redis0.json'), '{"pid":1}');
  fs.mkdirSync(path.join(dir, 'clock'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'clock', 'fencepost-clock.so'), 'ELF');
  fs.writeFileSync(path.join(dir, 'logs', 'client-0.log'), 'client 0 log\n');
  fs.symlinkSync('secrets.json', path.join(dir, 'summary.md')); // a listed name that resolves to an unlisted file
}

beforeAll(async () => {
  run = writeRunDir(root, 'redis', '2026-11-29T08-00-00.000Z', { fenced: false });
  writeReport(run);
  fs.symlinkSync(path.relative(root, run), path.join(root, 'latest'));
  plantPrivateFiles(run);
  // A run whose harness (this process) still runs: no report yet, its servers and passwords live.
  live = writeRunDir(root, 'redis', '2026-11-29T10-00-00.000Z', { fenced: false, results: false });
  plantPrivateFiles(live);
  claimRun(path.join(live, 'pids'));
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
    const missing = await raw('/nope.html');
    expect(missing).toEqual({
      status: 404,
      body: 'not found\n',
      type: 'text/plain; charset=utf-8',
      location: undefined,
    });
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

  it("serves a finished run what a reader needs, and its secrets, servers' files, pids and clock as the same 404", async () => {
    const finished = '/redis/2026-11-29T08-00-00.000Z';
    for (const f of ['report.html', 'results.json', 'test.json', 'history.jsonl', 'logs/client-0.log'])
      expect({ f, status: (await raw(`${finished}/${f}`)).status }).toEqual({ f, status: 200 });
    const missing = await raw('/nope.html');
    const secret = [
      'secrets.json',
      'nodes/redis0/redis.conf',
      'nodes/redis0/report.html', // a page's name inside a private folder
      'nodes/',
      'nodes',
      'pids/redis0.json',
      'pids/',
      'clock/fencepost-clock.so',
      'summary.md', // a listed name, a symlink to secrets.json
      'logs/',
      '',
    ].filter((f) => f !== '');
    for (const prefix of [finished, '/latest'])
      for (const f of secret) {
        const target = `${prefix}/${f}`;
        expect({ target, ...(await raw(target)) }).toEqual({ target, ...missing });
      }
    for (const target of [`${finished}/secrets.json`, `${finished}/nodes/redis0/redis.conf`])
      expect((await raw(target)).body).not.toContain('hunter2');
  });

  it('serves nothing of a run whose harness still runs', async () => {
    const missing = await raw('/nope.html');
    const dir = `/redis/2026-11-29T10-00-00.000Z`;
    for (const f of [
      '',
      'test.json',
      'history.jsonl',
      'logs/client-0.log',
      'secrets.json',
      'nodes/redis0/redis.conf',
      'pids/redis0.json',
    ]) {
      const target = `${dir}/${f}`;
      expect({ target, ...(await raw(target)) }).toEqual({ target, ...missing });
    }
  });

  it('lists no folder, and redirects only within the server whatever the path says', async () => {
    const missing = await raw('/nope.html');
    expect(await raw('/redis/')).toEqual(missing);
    expect(await raw('/redis')).toEqual(missing);
    // The open redirect of old: an encoded slash made the Location protocol-relative (//evil.example/…).
    for (const target of [
      '/%2Fevil.example%2F..%2Flatest',
      '//evil.example/../latest',
      '/%5Cevil.example%5C..%5Clatest',
    ])
      expect({ target, ...(await raw(target)) }).toEqual({ target, ...missing });
    const dir = await raw('/latest');
    expect(dir.status).toBe(301);
    expect(dir.location).toBe('/redis/2026-11-29T08-00-00.000Z/');
    const abs = await raw('http://evil.example/latest');
    expect([abs.status, abs.location]).toEqual([301, '/redis/2026-11-29T08-00-00.000Z/']);
  });

  it('answers 421 to a Host other than 127.0.0.1 or localhost (DNS rebinding), and sends a CSP', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, '10.0.0.1'])
      expect({ host, status: (await raw('/latest/report.html', { host })).status }).toEqual({ host, status: 421 });
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'LOCALHOST'])
      expect({ host, status: (await raw('/latest/report.html', { host })).status }).toEqual({ host, status: 200 });
    const res = await fetch(`${server.url}latest/report.html`);
    expect(res.headers.get('content-security-policy')).toBe(CSP);
  });

  it('keeps answering after 1,000 malformed requests', async () => {
    const net = await import('node:net');
    const junk = [
      'GET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n',
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /\0 HTTP/1.1\r\n\r\n',
      `GET /${'a/'.repeat(5000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      'GET /latest/report.html HTTP/1.1\r\nHost: 127.0.0.1\r\n', // cut off
    ];
    const one = (i: number) =>
      new Promise<void>((resolve) => {
        const s = net.connect(server.port, '127.0.0.1', () => {
          s.write(junk[i % junk.length]);
          if (i % 7 === 0)
            s.destroy(); // a reset mid-request
          else s.end();
        });
        s.on('data', () => undefined);
        s.on('error', () => resolve());
        s.on('close', () => resolve());
      });
    for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => one(i + k)));
    expect((await fetch(`${server.url}latest/results.json`)).status).toBe(200);
  });
});

describe('a reader who goes away mid-file', () => {
  /** This process's descriptors open on `file`: the server runs in it. */
  const openOn = (file: string) =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false; // closed meanwhile
      }
    }).length;

  it('closes the file at once: it stayed open until garbage collection, which warned (DEP0137)', async () => {
    const big = writeRunDir(root, 'redis', '2026-11-29T11-00-00.000Z', { fenced: false });
    const history = path.join(fs.realpathSync(big), 'history.jsonl');
    // Far more than the socket buffers hold, so the server is mid-file when the reader leaves.
    fs.writeFileSync(history, `${'{"type":"invoke"}\n'.repeat(1_000_000)}`);
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${server.url}redis/2026-11-29T11-00-00.000Z/history.jsonl`, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          expect(openOn(history)).toBe(1);
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
    });
    await eventually('the served file closed', () => openOn(history) === 0, 5000);
  });
});

describe('npm run jepsen -- serve --port', () => {
  it('listens on the port asked for', async () => {
    const probe = await startResultsServer(root, 0); // a port that is free right now
    await probe.close();
    const shutdown = new Shutdown();
    const running = serveCommand(parseCommandLine(['serve', `--port=${probe.port}`, `--results=${root}`]), shutdown);
    const res = await eventually(
      'the server answers on its port',
      () => fetch(`http://127.0.0.1:${probe.port}/`),
      10_000,
    );
    expect(res.status).toBe(200);
    await shutdown.runAll();
    expect(await running).toBe(EXIT.valid);
  });

  it('a port in use is a bad argument (exit 254) that says what to do, not a crash or another port', async () => {
    const err = await serveCommand(
      parseCommandLine(['serve', `--port=${server.port}`, `--results=${root}`]),
      new Shutdown(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    expect((err as HarnessError).message).toBe(`serve: cannot listen on 127.0.0.1:${server.port} (in use).`);
    expect((err as HarnessError).hint).toMatch(/pick another --port/);
  });

  it('rejects a port out of range before anything starts', () => {
    expect(() => parseCommandLine(['serve', '--port=70000'])).toThrow(/--port must be between 1 and 65535, got 70000/);
  });
});

describe('one unreadable folder under the results (N19)', () => {
  // Served as a user who cannot read one folder (`lost+found`, root's 0700): as root here, the process drops its
  // effective uid to nobody for the test (a vitest file runs in a process of its own) and takes it back after.
  const asRoot = process.getuid?.() === 0;
  it.runIf(asRoot)('the index lists the rest, and / still answers 200 (it answered 500 for good)', async () => {
    const theirs = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-serve-nobody-'));
    const readable = writeRunDir(theirs, 'redis', '2026-11-29T08-00-00.000Z', { fenced: false });
    writeReport(readable);
    fs.mkdirSync(path.join(theirs, 'lost+found'), { mode: 0o700 });
    chownAllBut(theirs, path.join(theirs, 'lost+found'));
    let nobodys: ResultsServer | null = null;
    process.seteuid!(65534);
    try {
      nobodys = await startResultsServer(theirs, 0);
      const res = await fetch(nobodys.url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('redis/2026-11-29T08-00-00.000Z/report.html');
    } finally {
      await nobodys?.close();
      process.seteuid!(0);
      fs.rmSync(theirs, { recursive: true, force: true });
    }
  });
});

/** Everything under `dir` to nobody, but `keep` (and below) to root: a folder nobody cannot read. */
function chownAllBut(dir: string, keep: string): void {
  const walk = (p: string) => {
    if (p === keep) return;
    fs.lchownSync(p, 65534, 65534);
    if (fs.lstatSync(p).isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(dir);
}
