import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCredentials, SECRETS_FILE } from './credentials.ts';
import { scramVerifier } from './servers/scram-verifier.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-creds-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('runCredentials', () => {
  it('creates fresh passwords in a 0600 file and reads the same ones back for the same run dir', () => {
    const dir = tmp();
    const a = runCredentials(dir);
    expect((fs.statSync(path.join(dir, SECRETS_FILE)).mode & 0o777).toString(8)).toBe('600');
    expect(new Set([a.redis, a.pg, a.pgSuperuser]).size).toBe(3);
    expect(runCredentials(dir)).toEqual(a);
    expect(runCredentials(tmp()).redis).not.toBe(a.redis);
  });

  it('refuses a secrets file other users can read', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, SECRETS_FILE), '{"redis":"x","pg":"y","pgSuperuser":"z"}', { mode: 0o644 });
    expect(() => runCredentials(dir)).toThrow(/not a private file of ours \(mode 644/);
  });
});

describe('scramVerifier', () => {
  // RFC 7677 §3's exchange: password "pencil", this salt, 4096 iterations; the server proves it knows ServerKey
  // with v=6rri…, so a verifier whose ServerKey reproduces v is the one a SCRAM server needs.
  it('reproduces the server signature of RFC 7677', () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const verifier = scramVerifier('pencil', salt);
    const m = /^SCRAM-SHA-256\$4096:W22ZaJ0SNY7soEsUEjb6gQ==\$([A-Za-z0-9+/=]{44}):([A-Za-z0-9+/=]{44})$/.exec(
      verifier,
    );
    expect(m).not.toBeNull();
    const nonce = 'rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const authMessage = `n=user,r=rOprNGfwEbeRWgbNEkqO,r=${nonce},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=${nonce}`;
    const serverKey = Buffer.from(m![2], 'base64');
    expect(crypto.createHmac('sha256', serverKey).update(authMessage).digest('base64')).toBe(
      '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
    );
  });
});
