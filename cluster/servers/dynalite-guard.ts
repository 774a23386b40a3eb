import type http from 'node:http';
import { accessKeyIdOf } from './sigv4.ts';

/**
 * What the run's DynamoDB server (dynalite) lets through: dynalite checks that a request is SigV4-shaped and nothing
 * more — any key id, any signature. fencepost's rule is that every server of a run is authenticated with per-run
 * credentials, so this guard sits in front of dynalite's request listener, in the same process, and refuses with
 * 403 every request whose `Authorization` header does not name the run's access key id.
 *
 * What it checks, honestly: the key id only, not the signature. The secret key never reaches the server, so a
 * local user who learns the run's key id (it is not in argv or the environment: a 0600 file of the node) could
 * still get through; one who does not is refused before dynalite parses anything. Query-string (presigned)
 * requests are refused too: no client of the run sends one.
 */
export const REFUSED_TYPE = 'com.amazon.coral.service#UnrecognizedClientException';

/** The 403 body, shaped like DynamoDB's own errors so that aws-sdk reports it as `UnrecognizedClientException`. */
export const REFUSED_BODY = JSON.stringify({
  __type: REFUSED_TYPE,
  message:
    "The security token included in the request is invalid (fencepost's guard: the Authorization header does not name this run's access key id; the signature is not checked).",
});

/** Put the key-id check in front of every `request` listener `server` has (dynalite's own). */
export function guardByAccessKeyId(server: http.Server, accessKeyId: string): void {
  const listeners = server.listeners('request') as http.RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (accessKeyIdOf(req.headers.authorization) === accessKeyId) {
      for (const l of listeners) l(req, res);
      return;
    }
    // Drain the body first, so the client sees the answer rather than a reset.
    req.resume();
    res.writeHead(403, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(REFUSED_BODY),
    });
    res.end(REFUSED_BODY);
  });
}
