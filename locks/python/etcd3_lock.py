"""python-etcd3's `Lock` (python3-etcd3 0.12) behind the lock-client protocol, used as its documentation shows:
`etcd3.client(host, port, user=, password=)`, `client.lock(name, ttl=…)`, `acquire(timeout=…)`, `refresh()`,
`release()` — the library's defaults for everything else (no gRPC deadline).

What the library gives and what it doesn't:
- One endpoint per client (0.12 has no multi-endpoint client): each client slot takes the member
  `client % members`, as a fleet of such processes would be spread over a cluster.
- Its lease is not kept alive: the lock expires after `ttl` seconds unless `refresh()` is called (renews: true).
  `ttl` is whole seconds: the run's TTL rounded up.
- Its keys live under `/locks/`, which the run's etcd role may not touch (it may write `fencepost/` only): the
  subclass below changes only the documented `lock_prefix` class attribute.
- Its password auth fails on a plaintext channel with any grpcio after 1.44 (Debian's is 1.51): it attaches the
  token both as call metadata and as call credentials, and gRPC refuses call credentials on an insecure channel
  ("Established channel does not have a sufficient security level to transfer call credential" — open upstream as
  kragniz/python-etcd3#1876, #2212, #2713). The metadata alone carries the token, so the client below drops the
  redundant call credentials right after connecting, the fix those threads give; nothing about the lock changes.
- A contended acquire fails on Debian 12 and is left failing: 0.12's `acquire` hands tenacity a two-argument
  `wait` callback, and tenacity 8 calls it with one, so whenever the key is taken the call dies with "TypeError:
  wait() missing 1 required positional argument: 'delay_since_first_attempt'" (kragniz/python-etcd3#2149 — this
  very pairing, 0.12.0 on etcd 3.4.23; fixed on master by #1109, never released). The glue does not patch it:
  the row measures the library as installed, so that acquire is an `error` reply (unknown: the library died after
  its failed transaction, and the protocol cannot claim more than it knows).
- Fencing token: `acquire` does not return the revision it wrote at (its own TODO says so), so it is read back
  with one `get` of the lock key right after the grant: that key's create revision, checked to carry our uuid.
  etcd's revision only grows and every holder creates the key anew, so each holder's token is larger.
"""

import math

import etcd3
import etcd3.locks

from lock_protocol import NotAcquired, serve


class FencepostLock(etcd3.locks.Lock):
    lock_prefix = "fencepost/locks/"


class Etcd3LockClient:
    def __init__(self, request):
        endpoints = request["endpoints"]
        members = endpoints["etcd"]
        url = members[request["client"] % len(members)]
        host, port = url.rsplit("//", 1)[-1].rsplit(":", 1)
        auth = endpoints.get("etcdAuth") or {}
        self.etcd = etcd3.client(host=host, port=int(port), user=auth.get("username"), password=auth.get("password"))
        self.etcd.call_credentials = None
        self.etcd.watcher.call_credentials = None
        self.ttl_s = max(1, math.ceil(request["ttlMs"] / 1000))
        self.acquire_timeout_s = request["acquireTimeoutMs"] / 1000
        self.locks = {}

    def acquire(self, key):
        lock = FencepostLock(key, ttl=self.ttl_s, etcd_client=self.etcd)
        if not lock.acquire(timeout=self.acquire_timeout_s):
            raise NotAcquired(f"python-etcd3 Lock.acquire returned False after {self.acquire_timeout_s} s")
        self.locks[key] = lock
        value, meta = self.etcd.get(lock.key)
        if value != lock.uuid:
            raise RuntimeError(f"lock key {lock.key} no longer carries our uuid right after the grant (lease expired?)")
        return {"result": "held", "token": str(meta.create_revision), "validityMs": lock.lease.ttl * 1000}

    def renew(self, key):
        lock = self.locks.get(key)
        if lock is None or lock.lease is None:
            return {"result": "lost"}
        responses = lock.refresh()
        # A keep-alive of an expired lease answers TTL 0: the key went with it.
        alive = bool(responses) and responses[0].TTL > 0
        return {"result": "held", "validityMs": responses[0].TTL * 1000} if alive else {"result": "lost"}

    def release(self, key):
        lock = self.locks.pop(key, None)
        was = bool(lock and lock.release())
        return {"result": "released", "held": was}

    def close(self):
        self.etcd.close()


if __name__ == "__main__":
    serve(Etcd3LockClient)
