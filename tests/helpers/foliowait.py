#!/usr/bin/python3
"""Two readers of one page of a slow device, the second behind the first's
page lock.

Usage: foliowait.py DEVICE GO_FILE N
Prints its pid, waits for GO_FILE, then N times: "folioA" (this process)
reads a 4 KiB page of DEVICE (buffered: the page is locked while its read
is in flight), and "folioB" (a child) reads the same page 5 ms after A
began, finding it locked.  Each round uses a page no one read before.
Prints a line per read: "NAME TID t0 t1" (CLOCK_MONOTONIC ns around the
pread).
"""
import ctypes
import os
import sys
import time
from gofile import wait_go

dev, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
libc = ctypes.CDLL(None)
libc.prctl(15, b"folioA", 0, 0, 0)
print(os.getpid(), flush=True)
wait_go(go)
fd = os.open(dev, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead: one page a read
a2b_r, a2b_w = os.pipe()
done_r, done_w = os.pipe()
if os.fork() == 0:
    libc.prctl(15, b"folioB", 0, 0, 0)
    for i in range(n):
        os.read(a2b_r, 1)  # A is about to read
        time.sleep(0.005)
        t0 = time.monotonic_ns()
        os.pread(fd, 4096, (16 + 2 * i) * 1048576)
        t1 = time.monotonic_ns()
        os.write(1, b"folioB %d %d %d\n" % (os.getpid(), t0, t1))  # one write: A writes too
        os.write(done_w, b"x")
    os._exit(0)
for i in range(n):
    os.write(a2b_w, b"x")
    t0 = time.monotonic_ns()
    os.pread(fd, 4096, (16 + 2 * i) * 1048576)
    t1 = time.monotonic_ns()
    os.write(1, b"folioA %d %d %d\n" % (os.getpid(), t0, t1))
    os.read(done_r, 1)
os.wait()
