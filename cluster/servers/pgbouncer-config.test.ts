import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authFileText, pgbouncerIni, writePgbouncerFiles, type PgbouncerSetup } from './pgbouncer-config.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pgbouncer-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const SETUP: PgbouncerSetup = {
  listenPort: 46432,
  pgPort: 45432,
  database: 'bank',
  user: 'fencepost',
  password: '0123456789abcdef0123456789abcdef',
  poolMode: 'transaction',
  waitTimeoutMs: 7000,
  authFile: '/run/x/nodes/pgbouncer/userlist.txt',
};

/** The ini's settings as `key → value`, per section. */
function settings(ini: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let section = '';
  for (const line of ini.split('\n')) {
    const head = /^\[(\w+)\]$/.exec(line);
    if (head) out[(section = head[1])] = {};
    else if (line.includes('=')) {
      const at = line.indexOf('=');
      out[section][line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
  }
  return out;
}

describe('pgbouncer.ini', () => {
  it('listens on 127.0.0.1 only, with no unix socket, and checks clients with SCRAM against the auth file', () => {
    const s = settings(pgbouncerIni(SETUP)).pgbouncer;
    expect(s).toMatchObject({
      listen_addr: '127.0.0.1',
      listen_port: '46432',
      unix_socket_dir: '',
      auth_type: 'scram-sha-256',
      auth_file: '/run/x/nodes/pgbouncer/userlist.txt',
    });
  });

  it('serves the bank database from the run’s Postgres on 127.0.0.1, lock_timeout = the wait budget', () => {
    expect(settings(pgbouncerIni(SETUP)).databases).toEqual({
      bank: "host=127.0.0.1 port=45432 dbname=bank connect_query='SET lock_timeout = 7000'",
    });
  });

  it('pools two server connections in the row’s mode; a queued statement waits the budget, in whole seconds', () => {
    const t = settings(pgbouncerIni(SETUP)).pgbouncer;
    const s = settings(pgbouncerIni({ ...SETUP, poolMode: 'session', waitTimeoutMs: 2500 })).pgbouncer;
    expect([t.pool_mode, t.default_pool_size, t.query_wait_timeout]).toEqual(['transaction', '2', '7']);
    expect([s.pool_mode, s.default_pool_size, s.query_wait_timeout]).toEqual(['session', '2', '3']);
    expect(s.server_reset_query).toBe('DISCARD ALL');
  });

  it('retries a failed login to Postgres after 0.2 s, not 15: it starts while Postgres is still starting', () => {
    expect(settings(pgbouncerIni(SETUP)).pgbouncer.server_login_retry).toBe('0.2');
  });

  it('holds no password: the role is a stats user by name only', () => {
    const ini = pgbouncerIni(SETUP);
    expect(ini).not.toContain(SETUP.password);
    expect(settings(ini).pgbouncer.stats_users).toBe('fencepost');
  });
});

describe('the auth file', () => {
  it('is one `"user" "password"` line, a double quote doubled', () => {
    expect(authFileText(SETUP)).toBe('"fencepost" "0123456789abcdef0123456789abcdef"\n');
    expect(authFileText({ user: 'a"b', password: 'p"w' })).toBe('"a""b" "p""w"\n');
  });
});

describe('writePgbouncerFiles', () => {
  it('writes both files 0600 into the node folder and rewrites them on the next start', () => {
    const dir = tmp();
    const setup = { ...SETUP, authFile: path.join(dir, 'userlist.txt') };
    const ini = writePgbouncerFiles(dir, setup);
    expect(ini).toBe(path.join(dir, 'pgbouncer.ini'));
    for (const f of [ini, setup.authFile]) expect((fs.statSync(f).mode & 0o777).toString(8)).toBe('600');
    writePgbouncerFiles(dir, { ...setup, listenPort: 46433 });
    expect(fs.readFileSync(ini, 'utf8')).toContain('listen_port = 46433');
    expect(fs.readFileSync(setup.authFile, 'utf8')).toBe(authFileText(SETUP));
    expect((fs.statSync(ini).mode & 0o777).toString(8)).toBe('600');
  });
});
