#!/usr/bin/env python3
# dirtier.py FILE MIB GO: once GO exists, writes MIB MiB to FILE in 64 KiB
# write() calls.  Prints its pid first, then the nanoseconds it spent inside
# write() by its own CLOCK_MONOTONIC (dirty throttling sleeps in there).
import os
import sys
import time
from gofile import wait_go

path, mib, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(os.getpid(), flush=True)
wait_go(go)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
buf = b"x" * 65536
spent = 0
for _ in range(mib * 16):
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    os.write(fd, buf)
    spent += time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t
os.close(fd)
print(spent, flush=True)
