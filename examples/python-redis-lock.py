#!/usr/bin/python3
"""redis-py's Lock, as its documentation shows it, behind fencepost's lock-client protocol: one JSON request a line
on stdin, one JSON reply a line on stdout (docs/protocol.md). No token: the lock's value is a
random owner id, which no resource can compare."""
import json
import sys

import redis
from redis.exceptions import LockNotOwnedError

conn, ttl_s, wait_s, held = None, 0.0, 0.0, {}


def handle(req):
    global conn, ttl_s, wait_s
    op = req["op"]
    if op == "connect":
        node = req["endpoints"]["redis"][0]  # the run's Redis (through its fault proxy when a fault acts there)
        conn = redis.Redis(host=node["host"], port=node["port"], password=node.get("password"))
        conn.ping()
        ttl_s, wait_s = req["ttlMs"] / 1000, req["acquireTimeoutMs"] / 1000
        return {"ok": True}
    if op == "acquire":
        lock = conn.lock("fencepost:" + req["key"], timeout=ttl_s)
        if not lock.acquire(blocking_timeout=wait_s):
            return {"result": "not-acquired", "reason": "still busy after %.1f s" % wait_s}
        held[req["key"]] = lock
        return {"result": "held"}
    if op == "renew":
        try:
            held[req["key"]].reacquire()  # back to the full TTL, if the lock is still ours
            return {"result": "held"}
        except LockNotOwnedError:
            return {"result": "lost"}
    if op == "release":
        try:
            held.pop(req["key"]).release()
            return {"result": "released", "held": True}
        except LockNotOwnedError:  # it expired and someone else may hold it now
            return {"result": "released", "held": False}
    if op == "close":
        return {"result": "closed"}
    raise ValueError("unknown op %r" % op)


for line in sys.stdin:
    request = json.loads(line)
    try:
        reply = handle(request)
    except Exception as e:  # anything else is "unknown": the harness records info and starts a fresh process
        reply = {"result": "error", "error": "%s: %s" % (type(e).__name__, e)}
    print(json.dumps({"id": request["id"], **reply}), flush=True)
    if request["op"] == "close":
        break
