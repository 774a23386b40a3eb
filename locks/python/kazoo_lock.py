"""kazoo's `Lock` (python3-kazoo) behind the lock-client protocol, used as kazoo's documentation shows it:
`KazooClient(hosts).start()`, `zk.Lock(path, identifier).acquire(timeout=…)`, `lock.release()` — kazoo's default
connection retry and its own reconnects; the session timeout is the run's TTL (`--ttl`), as for every ZooKeeper
lock here.

Fencing token: the czxid of our lock node. kazoo's holders take turns in the nodes' sequence order, which is
their creation order, and the leader hands out zxids in that same total order — so each holder's czxid exceeds
every earlier holder's. The sequence number (the node name's last 10 digits) grows the same way but is a 32-bit
counter of one parent; the czxid is 64-bit and cannot restart, and it is the token the TS zookeeper and the Curator
rows use, so a resource's fence means the same for all of them. Reading it costs one `exists` after the grant.
"""

from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout
from kazoo.security import make_digest_acl

from lock_protocol import NotAcquired, serve

LOCK_ROOT = "/fencepost/locks"


class KazooLockClient:
    def __init__(self, request):
        endpoints = request["endpoints"]
        auth = endpoints.get("zookeeperAuth")
        options = {}
        if auth:
            # The run's digest identity on the session, and every node (the lock's parent too) readable and
            # writable by that identity only: kazoo's documented `auth_data` and `default_acl`.
            options["auth_data"] = [("digest", f"{auth['username']}:{auth['password']}")]
            options["default_acl"] = [make_digest_acl(auth["username"], auth["password"], all=True)]
        self.zk = KazooClient(hosts=endpoints["zookeeper"], timeout=request["ttlMs"] / 1000, **options)
        self.zk.start()
        self.acquire_timeout_s = request["acquireTimeoutMs"] / 1000
        self.identifier = f"client-{request['client']}"
        self.locks = {}

    def acquire(self, key):
        lock = self.locks.get(key) or self.zk.Lock(f"{LOCK_ROOT}/{key}", self.identifier)
        self.locks[key] = lock
        try:
            got = lock.acquire(timeout=self.acquire_timeout_s)
        except LockTimeout as e:
            raise NotAcquired(str(e))
        if not got:
            raise NotAcquired(f"kazoo Lock.acquire returned False after {self.acquire_timeout_s} s")
        stat = self.zk.exists(f"{LOCK_ROOT}/{key}/{lock.node}")
        if stat is None:
            # Held by kazoo's account, but the node is already gone (the session expired in between): unknown.
            raise RuntimeError(f"lock node {lock.node} vanished right after the grant (session expired?)")
        return {"result": "held", "token": str(stat.czxid)}

    def renew(self, key):
        # ZooKeeper has nothing to extend (the session heartbeats); "still held" = our node still exists.
        lock = self.locks.get(key)
        if lock is None or not lock.is_acquired or lock.node is None:
            return {"result": "lost"}
        held = self.zk.exists(f"{LOCK_ROOT}/{key}/{lock.node}") is not None
        return {"result": "held" if held else "lost"}

    def release(self, key):
        lock = self.locks.get(key)
        was = bool(lock and lock.release())
        return {"result": "released", "held": was}

    def close(self):
        self.zk.stop()
        self.zk.close()


if __name__ == "__main__":
    serve(KazooLockClient)
