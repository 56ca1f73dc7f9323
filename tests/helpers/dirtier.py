#!/usr/bin/env python3
# dirtier.py FILE MIB GO [ASLEEP_MS]: once GO exists, writes MIB MiB to FILE
# in 64 KiB write() calls.  With ASLEEP_MS it goes on, from the start of the
# file again each MIB MiB, until its write() calls have taken ASLEEP_MS ms
# (a writer dirty throttling pauses sleeps in there) or 64 times MIB MiB
# are written: a load that stops when it has been throttled enough, however
# fast the device's writeback was found to be before.  Prints its pid first,
# then the nanoseconds it spent inside write() by its own CLOCK_MONOTONIC.
import os
import sys
import time
from gofile import wait_go

path, mib, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
until = int(sys.argv[4]) * 1000000 if len(sys.argv) > 4 else None
print(os.getpid(), flush=True)
wait_go(go)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
buf = b"x" * 65536
spent = 0
for i in range(mib * 16 * (64 if until else 1)):
    if i and i % (mib * 16) == 0:
        if spent >= until:
            break
        os.lseek(fd, 0, os.SEEK_SET)
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    os.write(fd, buf)
    spent += time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t
os.close(fd)
print(spent, flush=True)
