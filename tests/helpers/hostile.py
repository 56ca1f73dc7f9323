#!/usr/bin/python3
# hostile.py DEVICE QUEUE_ATTR [DIR]: names itself with an escape sequence, a
# newline and a byte that is not UTF-8, then reads DEVICE once with O_DIRECT
# and writes a value holding an escape sequence to the queue attribute; with
# DIR, creates a file there whose name is as hostile, writes to it with
# pwrite64 and keeps it open half a second (so its path can be resolved).
import ctypes, mmap, os, sys

NAME = b"\x1b[2J\n\xff\xc2\x9bx"
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(15, ctypes.c_char_p(NAME), 0, 0, 0):	# PR_SET_NAME
    sys.exit("prctl: " + os.strerror(ctypes.get_errno()))
buf = mmap.mmap(-1, 4096)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
os.preadv(fd, [buf], 0)
os.close(fd)
try:
    with open(sys.argv[2], "wb", buffering=0) as f:
        f.write(b"12\x1b]0;pwned\x07")
except OSError:
    pass	# refused, as it should be: the write is still traced
if len(sys.argv) > 3:
    path = os.path.join(sys.argv[3].encode(), b"f\x1b[31m\nevil\xff")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(fd, b"x" * 4096, 0)
    import time
    time.sleep(0.5)
    os.close(fd)
