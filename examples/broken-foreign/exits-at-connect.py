#!/usr/bin/python3
"""Broken on purpose: a lock process that dies on its first request (an import error, a bad config). Its client
dies with it (client-exited, the traceback in the client's log); after 5 deaths a client slot is given up, and when
every slot has, the run ends early: unknown. lock-check fails at connect ("exited on its own with code 1")."""
import sys

sys.stdin.readline()
sys.stderr.write("exits-at-connect: cannot reach the lock service (on purpose)\n")
sys.exit(1)
