#!/usr/bin/python3
"""A FUSE filesystem with one file, 'disk', whose every read sleeps DELAY_MS.

A loop device on top of it is a block device with a known, slow service
time and no kernel module: used to compare iodig's device time with fio's
completion latency where the device, not the syscall path, dominates.
Usage: slowfs.py MOUNTPOINT SIZE_MB DELAY_MS [rw|store]
(rw: writes sleep too; store: and are kept, so a file system fits on it)
"""
import errno
import stat
import sys
import time

from fusepy import FUSE, FuseOSError, Operations  # Debian: python3-fusepy


class SlowFS(Operations):
    def __init__(self, size, delay, slow_writes=False, store=False):
        self.size = size
        self.delay = delay
        self.slow_writes = slow_writes
        self.data = bytearray(size) if store else None

    def getattr(self, path, fh=None):
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2}
        if path == "/disk":
            return {"st_mode": stat.S_IFREG | 0o644, "st_nlink": 1, "st_size": self.size}
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "disk"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        time.sleep(self.delay)
        if self.data is not None:
            return bytes(self.data[offset:offset + size])
        return b"\0" * max(0, min(size, self.size - offset))

    def write(self, path, data, offset, fh):
        if self.slow_writes:
            time.sleep(self.delay)
        if self.data is not None:
            n = max(0, min(len(data), self.size - offset))
            self.data[offset:offset + n] = data[:n]
            return n
        return len(data)

    def truncate(self, path, length, fh=None):
        return 0


if __name__ == "__main__":
    mnt, size_mb, delay_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    slow_writes = len(sys.argv) > 4 and sys.argv[4] in ("rw", "store")
    store = len(sys.argv) > 4 and sys.argv[4] == "store"
    # direct_io: no page cache in between, every read reaches read() above
    FUSE(SlowFS(size_mb << 20, delay_ms / 1000.0, slow_writes, store), mnt, foreground=True,
         direct_io=True, nothreads=True, allow_other=False)
