#!/usr/bin/python3
"""A chain of waits through pipes, each answer known.

Usage: pipechain.py GO_FILE N BURN_MS DEPTH
Named "chainread" (prctl); prints its pid, waits for GO_FILE, then reads a
byte from a pipe N times.  Its writer is "chain1", which reads a byte from
"chain2" before it writes, and so on to "chainDEPTH", which runs on the
CPU for BURN_MS of its own thread time before each byte.  So each of the
reader's waits is ended by chain1, whose wait was ended by chain2, ...,
whose last wait was ended by chainDEPTH burning the CPU.
Each chainK writes its tid to GO_FILE.chainK; the last also writes, a line
per byte, its CPU time (its own thread clock, ns) from its fork or its last
byte to the end of this one: a span that holds the whole chain's waits.
The reader prints each read's "t0 t1" on CLOCK_MONOTONIC.
"""
import ctypes
import os
import sys
import time
from gofile import wait_go

go, n, burn, depth = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000, int(sys.argv[4])
libc = ctypes.CDLL(None)
libc.prctl(15, b"chainread", 0, 0, 0)
print(os.getpid(), flush=True)
wait_go(go)


def link(k, w):
    """chain k: writes a byte to w when chain k+1 wrote it one (or, the last,
    when it has burnt the CPU)"""
    libc.prctl(15, b"chain%d" % k, 0, 0, 0)
    last = k == depth
    if not last:
        r2, w2 = os.pipe()
        if os.fork() == 0:
            os.close(r2)
            os.close(w)
            link(k + 1, w2)
        os.close(w2)
    with open("%s.chain%d" % (go, k), "w") as out:
        print(os.getpid(), file=out, flush=True)
        spans, mark = [], 0  # the thread's clock starts at the fork
        for _ in range(n):
            if last:
                c0 = time.thread_time_ns()
                while time.thread_time_ns() - c0 < burn * 1e9:
                    pass
            else:
                os.read(r2, 1)
            os.write(w, b"x")
            if last:
                c1 = time.thread_time_ns()
                spans.append(c1 - mark)
                mark = c1
        for s in spans:
            print(s, file=out, flush=True)
    os._exit(0)


r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    link(1, w)
os.close(w)
for _ in range(n):
    t0 = time.monotonic_ns()
    os.read(r, 1)
    t1 = time.monotonic_ns()
    print(t0, t1, flush=True)
os.wait()
