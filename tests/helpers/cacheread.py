#!/usr/bin/python3
"""cacheread GO CHUNK FILE...: prints its pid, waits until GO exists, then
reads each FILE to its end in CHUNK-byte read(2) calls (a chunk of 1 MiB is
more pages than one filemap_get_pages batch holds), and exits."""
import os
import sys
import time
from gofile import wait_go

go, chunk, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(os.getpid(), flush=True)
wait_go(go)
for f in files:
    fd = os.open(f, os.O_RDONLY)
    while os.read(fd, chunk):
        pass
    os.close(fd)
