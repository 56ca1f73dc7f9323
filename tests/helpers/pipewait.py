#!/usr/bin/python3
"""A reader that waits on a pipe for a writer that sleeps first.

Usage: pipewait.py GO_FILE N DELAY_MS [busy | io=DEVICE]
Named "pipewait" (prctl).  Prints its pid, waits for GO_FILE, then N times:
the writer (a child, named "pipewriter") sleeps DELAY_MS (with "busy": runs
on the CPU for DELAY_MS of its own CPU time; with "io=DEVICE": reads 4 KiB
of DEVICE with O_DIRECT instead) and writes one byte while the reader is
blocked in read(2).  The reader prints each read's "t0 t1" on its
own clock (CLOCK_MONOTONIC ns): what why's sleep in pipe_read must fit
inside.  The writer writes its tid, then, a line each, its CPU time (its own
thread clock, ns) from its fork or its last write to the end of this write:
a span that holds the reader's whole wait, so no waker's CPU over the wait
is more; with io=, then the pread's time on its own clock (CLOCK_MONOTONIC).
"""
import ctypes
import mmap  # here, not in the writer's loop: a first import read from a
             # cold page cache is the writer's own I/O over the reader's wait
import os
import sys
import time
from gofile import wait_go

go, n, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000
mode = sys.argv[4] if len(sys.argv) > 4 else ""
busy = mode == "busy"
dev = mode[3:] if mode.startswith("io=") else None
ctypes.CDLL(None).prctl(15, b"pipewait", 0, 0, 0)
print(os.getpid(), flush=True)
wait_go(go)
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(r)
    ctypes.CDLL(None).prctl(15, b"pipewriter", 0, 0, 0)
    with open(go + ".writer", "w") as out:
        last = 0  # the thread's clock starts at the fork
        spans = []
        print(os.getpid(), file=out, flush=True)
        for _ in range(n):
            c0 = time.thread_time_ns()
            io = ""
            if busy:
                while time.thread_time_ns() - c0 < delay * 1e9:
                    pass
            elif dev:
                buf = mmap.mmap(-1, 4096)
                fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
                t0 = time.monotonic_ns()
                os.preadv(fd, [buf], 4096 * len(spans))
                io = " %d" % (time.monotonic_ns() - t0)
                os.close(fd)
            else:
                time.sleep(delay)
            os.write(w, b"x")
            c1 = time.thread_time_ns()
            spans.append("%d%s" % (c1 - last, io))
            last = c1
        for s in spans:
            print(s, file=out, flush=True)
    os._exit(0)
os.close(w)
for _ in range(n):
    t0 = time.monotonic_ns()
    os.read(r, 1)
    t1 = time.monotonic_ns()
    print(t0, t1, flush=True)
os.waitpid(child, 0)
