import fs from 'node:fs';
import { createRequire } from 'node:module';
import type http from 'node:http';
import { guardByAccessKeyId } from './dynalite-guard.ts';

/**
 * The run's DynamoDB server: dynalite (npm, DynamoDB's API over an in-memory LevelDB, `memory-level`) behind the
 * key-id guard (dynalite-guard.ts), listening on 127.0.0.1 only. Started by DynaliteNode as
 * `node --import tsx dynalite-server.ts <port> <key file>`; the key file (0600, the node's own) holds the run's access
 * key id, which never appears in argv. Table operations are instant (dynalite's default makes a table ACTIVE after
 * 500 ms); the status still turns ACTIVE on a timer after CreateTable answers, so the node's probe waits for it.
 */
type Dynalite = (options: Record<string, unknown>) => http.Server;

const [portArg, keyFile] = process.argv.slice(2);
if (!portArg || !keyFile) {
  console.error('usage: dynalite-server.ts <port> <key file>');
  process.exit(2);
}
const { accessKeyId } = JSON.parse(fs.readFileSync(keyFile, 'utf8')) as { accessKeyId: string };
// dynalite is CommonJS without types: required, not imported.
const dynalite = createRequire(import.meta.url)('dynalite') as Dynalite;
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
guardByAccessKeyId(server, accessKeyId);
server.listen(Number(portArg), '127.0.0.1', () => console.error(`dynalite listening on 127.0.0.1:${portArg}`));
server.on('error', (err) => {
  console.error(`dynalite: ${err.message}`);
  process.exit(1);
});
// A graceful stop ends the process at once: the data is in memory and thrown away anyway.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
