import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SECRETS_FILE } from '../cluster/credentials.ts';
import { startResultsServer, type ResultsServer } from './serve-command.ts';
import { startCli } from '../test/support/cli-run.ts';
import { eventually } from '../test/support/eventually.ts';

/**
 * `serve` over a real run through the CLI: while it runs, its folder holds the passwords (secrets.json), a
 * redis.conf with `requirepass` and pid records — none of which (nor anything else of the live run) is served;
 * once it has ended, its report and record are served, and the passwords are gone from the disk.
 */
const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-serve-live-'));
// Enterable by the servers' accounts (as root), so the node folders — redis.conf included — are inside the run dir.
fs.chmodSync(results, 0o755);
let server: ResultsServer | undefined;
afterAll(async () => {
  await server?.close();
  fs.rmSync(results, { recursive: true, force: true });
});

function get(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: server!.port, path: target }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

describe('serve over a live run and a finished one', () => {
  it('serves nothing of the live run, the finished run without its secrets, and deletes them', async () => {
    server = await startResultsServer(results, 0);
    const run = startCli(['--lock=redis', '--nemesis=none', '--time-limit=6'], { results });
    const lockDir = path.join(results, 'redis');
    // Live: the servers are up (their config holds requirepass) and the clients run.
    const runDir = await eventually(
      'a live run with redis.conf and secrets.json',
      () => {
        const stamp = fs.existsSync(lockDir) ? fs.readdirSync(lockDir)[0] : undefined;
        if (!stamp) return undefined;
        const dir = path.join(lockDir, stamp);
        const conf = path.join(dir, 'nodes', 'redis0', 'redis.conf');
        return fs.existsSync(conf) && fs.existsSync(path.join(dir, 'history.jsonl')) ? dir : undefined;
      },
      60_000,
    );
    const secrets = JSON.parse(fs.readFileSync(path.join(runDir, SECRETS_FILE), 'utf8')) as Record<string, string>;
    const rel = `/redis/${path.basename(runDir)}`;
    const missing = await get('/no-such-page.html');
    expect(missing.status).toBe(404);
    const pidFile = fs.readdirSync(path.join(runDir, 'pids')).find((f) => f.endsWith('.json'));
    expect(pidFile).toBeDefined();
    const private_ = [
      `${rel}/${SECRETS_FILE}`,
      `${rel}/nodes/redis0/redis.conf`,
      `${rel}/pids/${pidFile}`,
      `${rel}/%2e%2e/%2e%2e/${path.basename(runDir)}/${SECRETS_FILE}`,
      `${rel}%2F${SECRETS_FILE}`,
      `/%2F127.0.0.1%2F..%2F${rel.slice(1)}`,
    ];
    for (const target of [...private_, `${rel}/test.json`, `${rel}/history.jsonl`, `${rel}/`])
      expect({ target, ...(await get(target)) }).toEqual({ target, ...missing });

    const exit = await run.exit;
    expect(exit.code, exit.stderr).toBe(0);
    // Finished: the report and the record are served; the secrets are gone from the disk, and still a 404.
    expect(fs.existsSync(path.join(runDir, SECRETS_FILE))).toBe(false);
    for (const f of ['report.html', 'results.json', 'test.json', 'history.jsonl', 'logs/client-0.log'])
      expect({ f, status: (await get(`${rel}/${f}`)).status }).toEqual({ f, status: 200 });
    for (const target of private_) expect({ target, ...(await get(target)) }).toEqual({ target, ...missing });
    for (const entry of fs.readdirSync(results, { withFileTypes: true, recursive: true })) {
      const file = path.join(entry.parentPath, entry.name);
      if (!entry.isFile()) continue;
      const bytes = fs.readFileSync(file);
      for (const password of Object.values(secrets))
        expect({ file, leaks: bytes.includes(password) }).toEqual({ file, leaks: false });
    }
  }, 120_000);
});
