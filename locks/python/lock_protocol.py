"""The lock-client protocol's loop, for the built-in Python locks (kazoo, python-etcd3, redis-py).

One request per line on stdin, one reply per line on stdout, `id` echoed; see docs/protocol.md.
Each lock module supplies `connect(request) -> client`; the client has `acquire(key)`, `renew(key)`,
`release(key)` and `close()`, each returning the reply's fields. A `NotAcquired` raised by `acquire` is a
definite refusal; any other exception is "unknown" (an `error` reply), never a guess.

Why stdout is taken over at start: the libraries log, and a stray print on stdout would be a garbled reply. The
real stdout is kept for replies only and `sys.stdout` points at stderr, which is the client's log.
"""

import json
import logging
import os
import sys
import traceback


class NotAcquired(Exception):
    """The lock was definitely not obtained (its library said so: a timeout, a refusal)."""


def serve(connect):
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    client = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")
        op = request.get("op")
        try:
            reply = dispatch(connect, op, request, client)
            if op == "connect":
                client = reply.pop("client")
        except NotAcquired as e:
            reply = {"result": "not-acquired", "reason": str(e)}
        except Exception as e:  # unknown outcome: the harness records `info`
            traceback.print_exc(file=sys.stderr)
            text = f"{type(e).__name__}: {e}"
            reply = {"error": text} if op == "connect" else {"result": "error", "error": text}
        replies.write(json.dumps({"id": rid, **reply}) + "\n")
        if op == "close":
            break
    replies.close()
    # os._exit: a library's non-daemon threads (kazoo's, grpc's) must not keep the process alive after `close`.
    sys.stderr.flush()
    os._exit(0)


def dispatch(connect, op, request, client):
    if op == "connect":
        return {"ok": True, "client": connect(request)}
    if client is None:
        raise RuntimeError(f"{op!r} before a successful connect")
    if op == "acquire":
        return client.acquire(request["key"])
    if op == "renew":
        return client.renew(request["key"])
    if op == "release":
        return client.release(request["key"])
    if op == "close":
        client.close()
        return {"result": "closed"}
    raise ValueError(f"unknown op {op!r}")

