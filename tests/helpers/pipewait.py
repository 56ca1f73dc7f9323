#!/usr/bin/python3
"""A reader that waits on a pipe for a writer that sleeps first.

Usage: pipewait.py GO_FILE N DELAY_MS
Named "pipewait" (prctl).  Prints its pid, waits for GO_FILE, then N times:
the writer (a child) sleeps DELAY_MS and writes one byte while the reader
is blocked in read(2).  The reader prints each read's "t0 t1" on its own
clock (CLOCK_MONOTONIC ns): what why's sleep in pipe_read must fit inside.
"""
import ctypes
import os
import sys
import time

go, n, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000
ctypes.CDLL(None).prctl(15, b"pipewait", 0, 0, 0)
print(os.getpid(), flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(r)
    for _ in range(n):
        time.sleep(delay)
        os.write(w, b"x")
    os._exit(0)
os.close(w)
for _ in range(n):
    t0 = time.monotonic_ns()
    os.read(r, 1)
    t1 = time.monotonic_ns()
    print(t0, t1, flush=True)
os.waitpid(child, 0)
