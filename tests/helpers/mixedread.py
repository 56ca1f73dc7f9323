#!/usr/bin/python3
"""mixedread GO FILE MODE...: prints its pid, waits until GO exists, then
reads FILE once per MODE:
  direct-half  the first half with O_DIRECT (64 KiB, aligned), the second
               half buffered (64 KiB read(2) calls)
  buffered     all of it, buffered (64 KiB read(2) calls)
  mmap         all of it through a shared read-only mapping, one byte a page
and exits."""
import mmap
import os
import sys
import time
from gofile import wait_go

go, path, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
print(os.getpid(), flush=True)
wait_go(go)
size = os.stat(path).st_size
CH = 65536
for mode in modes:
    if mode == "direct-half":
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, CH)  # page-aligned, as O_DIRECT wants
        off = 0
        while off < size // 2:
            off += os.preadv(fd, [buf], off)
        os.close(fd)
        fd = os.open(path, os.O_RDONLY)
        os.lseek(fd, size // 2, os.SEEK_SET)
        while os.read(fd, CH):
            pass
        os.close(fd)
    elif mode == "buffered":
        fd = os.open(path, os.O_RDONLY)
        while os.read(fd, CH):
            pass
        os.close(fd)
    elif mode == "mmap":
        fd = os.open(path, os.O_RDONLY)
        m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        s = 0
        for i in range(0, size, 4096):
            s += m[i]
        m.close()
        os.close(fd)
    else:
        sys.exit("mixedread: no mode " + mode)
