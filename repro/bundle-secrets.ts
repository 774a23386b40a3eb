import fs from 'node:fs';
import path from 'node:path';
import { SECRETS_FILE } from '../cluster/credentials.ts';

/**
 * Names of files that hold credentials by convention: dotenv files, keys and certificates' private halves, ssh's
 * identities, the credential files of npm, curl, AWS and the like. A bundle is meant to be sent to strangers.
 */
const CREDENTIAL_NAMES = [
  /^\.env(\..+)?$|\.env$/i,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|asc|gpg)$/i,
  /^id_[a-z0-9]+(\.pub)?$/i,
  /^\.?(npmrc|netrc|pgpass|htpasswd|git-credentials)$/i,
  // Not "token": a fencing token is this domain's word, and a lock's file may well be named for it.
  /(^|[-_.])(credentials?|secrets?|passwords?)([-_.]|$)/i,
];

/** Secret values shorter than this are not searched for: they would match by chance. */
const MIN_SECRET_LENGTH = 8;

/**
 * What the bundle folder `dir` would carry that it must not, one line each: a file named like a credential, or a
 * file holding one of the run's own passwords (its SECRETS_FILE, while the run folder still has it). Empty: none.
 */
export function secretFindings(dir: string, runDir: string): string[] {
  const secrets = runSecrets(runDir);
  const found: string[] = [];
  const walk = (rel: string) => {
    const at = path.join(dir, rel);
    const st = fs.lstatSync(at);
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(at).sort()) walk(rel ? `${rel}/${name}` : name);
      return;
    }
    if (CREDENTIAL_NAMES.some((re) => re.test(path.basename(rel))))
      found.push(`${rel} looks like a credential (by its name)`);
    const text = fs.readFileSync(at, 'latin1');
    if (secrets.some((s) => text.includes(s))) found.push(`${rel} holds a password of the run (${SECRETS_FILE})`);
  };
  walk('');
  return found;
}

/** Every string value of the run's secrets file, when it is still there (it goes when the run ends). */
function runSecrets(runDir: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(runDir, SECRETS_FILE), 'utf8'));
  } catch {
    return [];
  }
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string' && v.length >= MIN_SECRET_LENGTH) out.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  collect(raw);
  return out;
}
