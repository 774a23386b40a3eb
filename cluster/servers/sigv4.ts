import crypto from 'node:crypto';

/**
 * AWS Signature Version 4, the two halves fencepost needs around its DynamoDB server (dynalite): reading which access
 * key id a request's `Authorization` header names (the guard in front of dynalite), and signing the harness's own
 * few calls (its readiness probe creates the run's table). The scheme is AWS's "Create a signed AWS API request"
 * page; the lock clients sign with aws-sdk's own signer.
 */

/** `AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/<service>/aws4_request, SignedHeaders=…, Signature=…`. */
const CREDENTIAL = /^AWS4-HMAC-SHA256\s+(?:[^,]*,\s*)*?Credential=([^/,\s]+)\//;

/** The access key id an `Authorization` header names, or null when it is absent or not a SigV4 header. */
export function accessKeyIdOf(authorization: string | undefined): string | null {
  return authorization ? (CREDENTIAL.exec(authorization)?.[1] ?? null) : null;
}

export interface SigningKeys {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

const sha256 = (data: string) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac('sha256', key).update(data).digest();

/**
 * The headers of a signed DynamoDB JSON request (`X-Amz-Target: DynamoDB_20120810.<action>`) to `host` at `now`, the
 * body's hash in the canonical request.
 */
export function signedDynamoHeaders(
  keys: SigningKeys,
  host: string,
  action: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  // Signed as aws-sdk v2 signs a DynamoDB call (its V4 signer: host, x-amz-date, x-amz-target; not content-type).
  const headers: Record<string, string> = {
    host,
    'x-amz-date': amzDate,
    'x-amz-target': `DynamoDB_20120810.${action}`,
  };
  const names = Object.keys(headers).sort();
  const canonical = ['POST', '/', '', ...names.map((n) => `${n}:${headers[n]}`), '', names.join(';'), sha256(body)];
  const scope = `${day}/${keys.region}/dynamodb/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical.join('\n'))].join('\n');
  let key: Buffer = hmac(`AWS4${keys.secretAccessKey}`, day);
  for (const part of [keys.region, 'dynamodb', 'aws4_request']) key = hmac(key, part);
  const signature = crypto.createHmac('sha256', key).update(toSign).digest('hex');
  return {
    ...headers,
    'content-type': 'application/x-amz-json-1.0',
    authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
