import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../common/free-port.ts';
import type { NodeHost } from '../node-host.ts';
import { EtcdNode } from './etcd-node.ts';

// A member's wait for the one before it (EtcdNode.prepare): over real sockets on 127.0.0.1, no etcd needed.
function member(peerPort: number): EtcdNode {
  return new EtcdNode({
    name: 'etcd[0]',
    kind: 'etcd',
    port: 1,
    dir: '/nonexistent',
    logFile: '/nonexistent/log',
    host: {} as NodeHost,
    readyTimeoutMs: 1000,
    peerPort,
    initialCluster: '',
    clusterToken: '',
    rootPassword: '',
    userPassword: '',
  });
}

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('EtcdNode.servingPeers', () => {
  it('resolves at the first answer of the peer port, whatever its status', async () => {
    const port = await freePort();
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404).end();
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
    await member(port).servingPeers(60_000);
    expect(asked).toEqual(['/members']);
  });

  // The bound itself is under test: a third of the way into its 300 ms the wait must still be pending.
  const WELL_INSIDE_THE_BOUND_MS = 100;
  it('gives up after its bound when nothing ever answers (the member then starts as before)', async () => {
    const port = await freePort();
    let settled = false;
    const wait = member(port)
      .servingPeers(300)
      .then(() => (settled = true));
    await new Promise((r) => setTimeout(r, WELL_INSIDE_THE_BOUND_MS));
    expect(settled).toBe(false);
    await wait;
    expect(settled).toBe(true);
  });
});
