#!/usr/bin/python3
"""Two processes that block each other on two pipes, N rounds.

Usage: pipepingpong.py GO_FILE N DELAY_MS
The first process is named "pingA" (prctl), the second "pingB".  pingA
prints its pid, waits for GO_FILE, then N times: read(2) of one byte from
pipe 1, which pingB writes DELAY_MS after pingA blocked in it (pingA waits
in pipe_read, woken from pipe_write), and one write(2) of 8 KiB into pipe
2, whose capacity is 4 KiB, which pingB drains DELAY_MS after pingA blocked
in it (pingA waits in pipe_write, woken from pipe_read).  pingB sees pingA
blocked in /proc/PID/syscall (root).  Each of pingA's 2N calls thus
blocks at least once, at one of two places known in advance, woken by
pingB from the other.  pingA prints "done" at the end.
"""
import ctypes
import fcntl
import os
import sys
import time
from gofile import wait_go

F_SETPIPE_SZ = 1031
go, n, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000
libc = ctypes.CDLL(None)
r1, w1 = os.pipe()
r2, w2 = os.pipe()
fcntl.fcntl(w2, F_SETPIPE_SZ, 4096)
r0, w0 = os.pipe()
a = os.getpid()


def blocked_in(nr):
    """Wait until pingA sleeps in system call nr (0 read, 1 write): a
    delay counted from then is one its call waits, however late the
    scheduler runs it (a busy CPU)."""
    while True:
        with open(f"/proc/{a}/syscall") as f:
            if f.read().split(" ", 1)[0] == str(nr):
                return
        time.sleep(0.0002)


if os.fork() == 0:
    libc.prctl(15, b"pingB", 0, 0, 0)
    os.read(r0, 1)  # pingA's start
    for _ in range(n):
        blocked_in(0)
        time.sleep(delay)
        os.write(w1, b"x")
        blocked_in(1)
        time.sleep(delay)
        got = 0
        while got < 8192:
            got += len(os.read(r2, 8192 - got))
    os._exit(0)
libc.prctl(15, b"pingA", 0, 0, 0)
print(os.getpid(), flush=True)
wait_go(go)
os.write(w0, b"s")
buf = b"y" * 8192
for _ in range(n):
    os.read(r1, 1)
    assert os.write(w2, buf) == 8192
os.wait()
print("done", flush=True)
