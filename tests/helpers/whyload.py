#!/usr/bin/python3
"""Workloads with a known answer for `iodig why` tests.

Usage: whyload.py GO_FILE MODE ARGS...
Writes its pid to stdout, waits until GO_FILE exists (so the tracer can be
started with -p first; gives up when GO_FILE's directory goes, so a test
that failed early leaves nothing behind), then runs MODE.  Each traced call
is timed on the helper's own CLOCK_MONOTONIC (the clock of iodig's ts_ns),
one line per call in GO_FILE.clock: "start_ns end_ns ret preempted cpu_ns":
the thread's involuntary context switches around the timed window (not 0:
the helper may have been preempted outside the call, between its clock and
the system call, so its time may exceed the call's by that much), then its
own CPU time within the window (CLOCK_THREAD_CPUTIME_ID, read inside
the monotonic reads: the CPU it counts lies in the window).
  cpu FILE MB N          N preads of MB MiB from FILE (cached: on CPU)
  direct DEV N [GAP_MS]  N 4 KiB O_DIRECT preads from DEV (device time),
                         GAP_MS apart (untimed)
  append FILE MB N       N writes of MB MiB to FILE opened O_APPEND (i_rwsem)
  pipe MS N              N reads of a pipe a child writes to MS ms after each
                         read starts (the read sleeps MS ms)
  stream FILE MB N       N preads of MB MiB, one after another through FILE
  seq FILE KB            read(2)s of KB KiB from the start of FILE to its end
  loop FILE MB PASSES    preads of MB MiB through the whole of FILE, PASSES
                         times over (a working set the cache may not hold)
  meta DIR N             N times: openat(DIR/aI, O_CREAT) then rename to bI
  sync FILE KB N [GAP_MS]
                         N times: a KB KiB write appended to FILE, then its
                         fdatasync, both timed (a database's log; the write
                         too may wait for the journal's commit), GAP_MS apart
                         (untimed: another writer's data gathers meanwhile)
  fault FILE PAGES N     N preads of PAGES pages of FILE (cached) into a
                         fresh private anonymous buffer each time: each
                         page of it faults in once, inside the read
"""
import gc
import mmap
import os
import resource
import select
import sys
import time
from gofile import wait_go

CLOCK = time.CLOCK_MONOTONIC


def main():
    go, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    clock = open(go + ".clock", "w")  # before tracing: its openat is not the workload's
    print(os.getpid(), flush=True)
    wait_go(go)

    # no collection between a call's two clock reads: a test holds iodig's
    # time of the call to the helper's within 2% (one run here saw 0.7 ms more
    # on the helper's clock, not preempted)
    gc.disable()

    def timed(call, *a):
        n0 = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
        t0 = time.clock_gettime_ns(CLOCK)
        c0 = time.thread_time_ns()
        r = call(*a)
        c1 = time.thread_time_ns()
        t1 = time.clock_gettime_ns(CLOCK)
        n1 = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
        clock.write("%d %d %d %d %d\n" % (t0, t1, r if isinstance(r, int) else len(r or b""), n1 - n0, c1 - c0))
        return r

    if mode == "cpu":
        path, mb, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_RDONLY)
        buf = bytearray(mb << 20)
        for _ in range(n):
            timed(os.preadv, fd, [buf], 0)
    elif mode == "direct":
        dev, n = args[0], int(args[1])
        gap = float(args[2]) / 1000 if len(args) > 2 else 0
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, 4096)
        for i in range(n):
            timed(os.preadv, fd, [buf], i * 65536)
            time.sleep(gap)
    elif mode == "append":
        path, mb, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        buf = b"x" * (mb << 20)
        for _ in range(n):
            timed(os.write, fd, buf)
    elif mode == "pipe":
        ms, n = int(args[0]), int(args[1])
        r, w = os.pipe()
        go_r, go_w = os.pipe()
        # the writer a process of its own, spawned (vfork and exec), not
        # forked: after a fork this process's first timed call came with up
        # to 1 ms of copy-on-write faults on its CPU clock, outside the read
        # (it says it is up with a byte, waited for in select(): the read
        # of it is then quick, below any threshold a test gives why)
        child = os.posix_spawn(sys.executable, [sys.executable, "-c", """
import os, sys, time
os.write(4, b"r")
for _ in range(int(sys.argv[2])):
    os.read(3, 1)
    time.sleep(float(sys.argv[1]) / 1000)
    os.write(4, b"x")
""", str(ms), str(n)], os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, go_r, 3), (os.POSIX_SPAWN_DUP2, w, 4)])
        os.close(go_r)
        os.close(w)
        select.select([r], [], [])
        os.read(r, 1)
        for _ in range(n):
            os.write(go_w, b"g")
            timed(os.read, r, 1)
        os.waitpid(child, 0)
    elif mode == "stream":
        path, mb, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_RDONLY)
        buf = bytearray(mb << 20)
        for i in range(n):
            timed(os.preadv, fd, [buf], i * (mb << 20))
    elif mode == "loop":
        path, mb, passes = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_RDONLY)
        buf = bytearray(mb << 20)
        size = os.fstat(fd).st_size
        for _ in range(passes):
            for off in range(0, size, mb << 20):
                timed(os.preadv, fd, [buf], off)
    elif mode == "seq":
        path, kb = args[0], int(args[1])
        fd = os.open(path, os.O_RDONLY)
        while timed(os.read, fd, kb << 10):
            pass
    elif mode == "meta":
        d, n = args[0], int(args[1])
        for i in range(n):
            fd = timed(os.open, "%s/a%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644)
            os.close(fd)
            timed(os.rename, "%s/a%d" % (d, i), "%s/b%d" % (d, i))
    elif mode == "sync":
        path, kb, n = args[0], int(args[1]), int(args[2])
        gap = int(args[3]) / 1000 if len(args) > 3 else 0
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        buf = b"l" * (kb << 10)
        for i in range(n):
            if i and gap:
                time.sleep(gap)
            timed(os.write, fd, buf)
            timed(os.fdatasync, fd)
    elif mode == "fault":
        path, pages, n = args[0], int(args[1]), int(args[2])
        fd = os.open(path, os.O_RDONLY)
        os.pread(fd, pages * 4096, 0)  # cached before the timed reads
        for _ in range(n):
            buf = mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            if hasattr(buf, "madvise"):
                buf.madvise(mmap.MADV_NOHUGEPAGE)
            timed(os.preadv, fd, [buf], 0)
            buf.close()
    else:
        sys.exit("unknown mode " + mode)
    clock.close()


if __name__ == "__main__":
    main()
