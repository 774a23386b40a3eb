import crypto from 'node:crypto';

/** Postgres's default SCRAM iteration count (scram_iterations). */
const ITERATIONS = 4096;

/**
 * The SCRAM-SHA-256 verifier Postgres stores for a password (RFC 5802/7677, as in Postgres's
 * scram_build_secret): `SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>`. Why we compute it: `CREATE ROLE …
 * PASSWORD '<verifier>'` then never carries the password itself, so a statement that ends up in the server's
 * log (an error logs its statement) can't leak it. Postgres accepts a verifier in place of a password. No
 * SASLprep here: it is the identity for the ASCII passwords of cluster/credentials.ts.
 */
export function scramVerifier(
  password: string,
  salt: Buffer = crypto.randomBytes(16),
  iterations = ITERATIONS,
): string {
  const salted = crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => crypto.createHmac('sha256', key).update(text).digest();
  const storedKey = crypto.createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
