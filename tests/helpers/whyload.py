#!/usr/bin/python3
"""Workloads with a known answer for `iodig why` tests.

Usage: whyload.py GO_FILE MODE ARGS...
Writes its pid to stdout, waits until GO_FILE exists (so the tracer can be
started with -p first; gives up when GO_FILE's directory goes, so a test
that failed early leaves nothing behind), then runs MODE:
  cpu FILE MB N          N preads of MB MiB from FILE (cached: on CPU)
  direct DEV N           N 4 KiB O_DIRECT preads from DEV (device time)
  append FILE MB N       N writes of MB MiB to FILE opened O_APPEND (i_rwsem)
"""
import mmap
import os
import sys
import time


def main():
    go, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(os.getpid(), flush=True)
    while not os.path.exists(go):
        if not os.path.isdir(os.path.dirname(go) or "."):
            sys.exit("whyload: the test that started it is gone")
        time.sleep(0.01)
    if mode == "cpu":
        path, mb, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_RDONLY)
        buf = bytearray(mb << 20)
        for _ in range(n):
            os.preadv(fd, [buf], 0)
    elif mode == "direct":
        dev, n = args[0], int(args[1])
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, 4096)
        for i in range(n):
            os.preadv(fd, [buf], i * 65536)
    elif mode == "append":
        path, mb, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        buf = b"x" * (mb << 20)
        for _ in range(n):
            os.write(fd, buf)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
