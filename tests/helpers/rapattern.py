#!/usr/bin/python3
"""rapattern GO FILE ADVICE: prints its pid, waits until GO exists; drops
FILE from the page cache, advises ADVICE (normal, random or sequential) and
reads it.  normal/random: in each of 20 regions 1 MiB apart, 32 KiB at the
region's start and 32 KiB right after (a sequential start that readahead
follows, then a jump); sequential: the whole file in 64 KiB reads.  Then
prints the pages fincore sees cached, drops the file again (readahead's
unused pages are evicted) and exits."""
import os
import subprocess
import sys
import time
from gofile import wait_go

go, path, advice = sys.argv[1:4]
print(os.getpid(), flush=True)
wait_go(go)
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
adv = {"normal": os.POSIX_FADV_NORMAL, "random": os.POSIX_FADV_RANDOM,
       "sequential": os.POSIX_FADV_SEQUENTIAL}[advice]
os.posix_fadvise(fd, 0, 0, adv)
if advice == "sequential":
    while os.read(fd, 65536):
        pass
else:
    for r in range(20):
        os.pread(fd, 32768, r << 20)
        os.pread(fd, 32768, (r << 20) + 32768)
out = subprocess.run(["fincore", "-b", "-n", "-o", "PAGES", path], capture_output=True, text=True).stdout
print(out.strip(), flush=True)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
