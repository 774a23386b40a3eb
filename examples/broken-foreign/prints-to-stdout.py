#!/usr/bin/python3
"""Broken on purpose: a lock process that prints its own log lines to stdout, where only protocol replies may go
(a library's debug print, a stray `print`). The harness cannot tell a reply from chatter: every request it answers
this way is a protocol violation, recorded as unknown (info), and the process is replaced. lock-check fails at
connect, naming the line; a chaos run never connects, and ends unknown (no progress)."""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    print("connecting to redis...", flush=True)
    print(json.dumps({"id": request["id"], "ok": True}), flush=True)
