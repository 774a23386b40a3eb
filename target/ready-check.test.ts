import net from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { NodeActions } from './remote-node.ts';
import { RemoteRedis } from './remote-servers.ts';

// Audit R18: with the ACL docs/targets.md recommends (`-@dangerous` takes INFO), ioredis printed "Skipping the
// ready check because INFO command fails…" on every connection to the target: 3 times per `target check`.

/** A Redis that refuses INFO as the fenced ACL does and answers anything else +OK (PING: +PONG). */
const server = net.createServer((socket) => {
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1');
    // One reply per RESP array whose words all arrived: `*<n>`, then n bulk strings.
    for (;;) {
      const m = /^\*(\d+)\r\n((?:\$\d+\r\n[^\r]*\r\n)*)/.exec(buffered);
      const words = m ? [...m[2].matchAll(/\$\d+\r\n([^\r]*)\r\n/g)].map((w) => w[1]) : [];
      if (!m || words.length < Number(m[1])) return;
      const taken = words.slice(0, Number(m[1]));
      buffered = buffered.slice(m[0].length);
      const verb = taken[0].toUpperCase();
      socket.write(
        verb === 'INFO'
          ? "-NOPERM this user has no permissions to run the 'info' command\r\n"
          : verb === 'PING'
            ? '+PONG\r\n'
            : '+OK\r\n',
      );
    }
  });
});
afterAll(() => server.close());

describe("a target's Redis connections skip ioredis's ready check", () => {
  it('target check and the run connect without the INFO warning, and clients get the same option', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const actions = { adapters: {}, guard: null, boundMs: { pause: 0, kill: 0 } } as NodeActions;
    const node = new RemoteRedis({ name: 'r0', host: '127.0.0.1', port, node: 'r0' }, actions, 'fp-t/', null, null);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(await node.withClient((r) => r.ping())).toBe('PONG');
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
    expect(node.endpoint()).toMatchObject({ host: '127.0.0.1', port, enableReadyCheck: false });
  });
});
