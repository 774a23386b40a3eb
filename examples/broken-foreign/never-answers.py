#!/usr/bin/python3
"""Broken on purpose: a lock process that reads its requests and never answers (a deadlock, a blocking call with
no timeout). Each request is abandoned after its time limit, recorded as unknown (info), and the process killed.
lock-check fails at connect ("no reply … within 5000 ms"); a chaos run never connects, and ends unknown."""
import sys

for line in sys.stdin:
    pass
