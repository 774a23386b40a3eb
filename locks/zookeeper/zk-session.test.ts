import { EventEmitter } from 'node:events';
import zookeeper from 'node-zookeeper-client';
import { describe, expect, it } from 'vitest';
import { ZkCallTimeout, ZkSession, zkDigestAcl } from './zk-session.ts';

describe('zkDigestAcl', () => {
  it("names the identity as ZooKeeper's digest scheme does, user:base64(sha1(user:password)), with every permission", () => {
    // Expected digest from `echo -n fencepost:s3cret | openssl sha1 -binary | base64`.
    const [acl, ...rest] = zkDigestAcl({ username: 'fencepost', password: 's3cret' });
    expect(rest).toEqual([]);
    // Permission.ALL = READ | WRITE | CREATE | DELETE | ADMIN = 31. (The library's field is `permission`; its
    // published types call it `perms`, hence the object match.)
    expect(acl).toMatchObject({
      permission: 31,
      id: { scheme: 'digest', id: 'fencepost:f4mZwyysSVmBSez9WRT3YuCpU08=' },
    });
  });
});

/**
 * A client as node-zookeeper-client's reconnect leaves it: disconnected, with calls answered only once connected
 * again. The library would queue a call made now ahead of the auth packet it queues on reconnecting.
 */
class ReconnectingClient extends EventEmitter {
  state = zookeeper.State.DISCONNECTED;
  readonly sent: string[] = [];
  getState() {
    return this.state;
  }
  getChildren(path: string, cb: (err: Error | null, children: string[]) => void) {
    this.sent.push(`getChildren ${path} while ${this.state === zookeeper.State.SYNC_CONNECTED ? 'connected' : 'not'}`);
    cb(null, ['c1-lock-0000000001']);
  }
  reconnect() {
    this.state = zookeeper.State.SYNC_CONNECTED;
    this.emit('connected');
  }
}

/** ZkSession over a stand-in client (its constructor is private: the real one opens a connection). */
function sessionOver(client: ReconnectingClient, callTimeoutMs: number): ZkSession {
  const make = ZkSession as unknown as new (client: unknown, callTimeoutMs: number, acl: unknown[]) => ZkSession;
  return new make(client, callTimeoutMs, []);
}

describe('ZkSession while the client reconnects', () => {
  it('sends a call only once the client is connected again, after its auth (was: sent at once, answered NO_AUTH)', async () => {
    const client = new ReconnectingClient();
    const children = sessionOver(client, 60_000).getChildren('/fencepost/locks/account-0');
    await Promise.resolve();
    expect(client.sent).toEqual([]);
    client.reconnect();
    expect(await children).toEqual(['c1-lock-0000000001']);
    expect(client.sent).toEqual(['getChildren /fencepost/locks/account-0 while connected']);
  });

  it('gives up at the call deadline when the client never connects', async () => {
    const client = new ReconnectingClient();
    await expect(sessionOver(client, 0).getChildren('/x')).rejects.toThrow(ZkCallTimeout);
    expect(client.sent).toEqual([]);
    expect(client.listenerCount('connected')).toBe(0);
  });
});
