"""redis-py's `Lock` (python3-redis) behind the lock-client protocol, used as its documentation shows:
`redis.Redis(host, port, password)`, `r.lock(name, timeout=ttl, blocking_timeout=…)`, `acquire()`,
`reacquire()` to reset the TTL, `release()` — redis-py's defaults for everything else (no socket timeout, its
0.1 s polling sleep). A single Redis: `SET NX PX` with a random owner token and a Lua compare-and-delete.

No fencing token: the value is a random uuid, which tells holders apart but not which one came later.
"""

import redis
from redis.exceptions import LockNotOwnedError

from lock_protocol import NotAcquired, serve


class RedisLockClient:
    def __init__(self, request):
        endpoint = request["endpoints"]["redis"][0]
        self.redis = redis.Redis(host=endpoint["host"], port=endpoint["port"], password=endpoint.get("password"))
        self.redis.ping()
        self.ttl_s = request["ttlMs"] / 1000
        self.acquire_timeout_s = request["acquireTimeoutMs"] / 1000
        self.locks = {}

    def acquire(self, key):
        lock = self.redis.lock(f"fencepost:lock:{key}", timeout=self.ttl_s, blocking_timeout=self.acquire_timeout_s)
        if not lock.acquire():
            raise NotAcquired(f"redis-py Lock.acquire returned False after {self.acquire_timeout_s} s")
        self.locks[key] = lock
        return {"result": "held", "validityMs": round(self.ttl_s * 1000)}

    def renew(self, key):
        lock = self.locks.get(key)
        if lock is None:
            return {"result": "lost"}
        try:
            lock.reacquire()
        except LockNotOwnedError:
            return {"result": "lost"}
        return {"result": "held", "validityMs": round(self.ttl_s * 1000)}

    def release(self, key):
        lock = self.locks.pop(key, None)
        if lock is None:
            return {"result": "released", "held": False}
        try:
            lock.release()
        except LockNotOwnedError:
            return {"result": "released", "held": False}
        return {"result": "released", "held": True}

    def close(self):
        self.redis.close()


if __name__ == "__main__":
    serve(RedisLockClient)
