#!/usr/bin/python3
"""Execs with a known answer for `iodig exec` tests.

Usage: execload.py OUT.json
Runs, each from a child of this process, and writes what it did to OUT.json:
  50 x /bin/true                       (50 successful execs, known pids)
  /bin/true a "b c" ""                 (arguments as given, an empty one)
  /nonexistent/iodig                   (fails: ENOENT)
  /etc/hostname                        (fails: EACCES, not executable)
  /bin/echo 1 .. 30                    (more arguments than read by default)
  /bin/true as uid 65534               (the -u filter)
  /bin/true "\x1b[31mred\n"            (an argument a terminal would obey)
"""
import json
import os
import sys


def run(path, argv, uid=None):
    pid = os.fork()
    if pid == 0:
        try:
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            fd = os.open("/dev/null", os.O_WRONLY)
            os.dup2(fd, 1)
            os.execv(path, argv)
        except OSError as e:
            os._exit(100 + e.errno)
    _, status = os.waitpid(pid, 0)
    return {"pid": pid, "path": path, "args": argv, "uid": uid or 0,
            "status": os.waitstatus_to_exitcode(status)}


def main():
    out = {"ppid": os.getpid(), "trues": [], "other": []}
    for _ in range(50):
        out["trues"].append(run("/bin/true", ["true"])["pid"])
    out["other"].append(run("/bin/true", ["true", "a", "b c", ""]))
    out["other"].append(run("/nonexistent/iodig", ["iodig-missing"]))
    out["other"].append(run("/etc/hostname", ["hostname-file"]))
    out["other"].append(run("/bin/echo", ["echo"] + [str(i) for i in range(1, 31)]))
    out["other"].append(run("/bin/true", ["true", "as-nobody"], uid=65534))
    out["other"].append(run("/bin/true", ["true", "\x1b[31mred\n"]))
    with open(sys.argv[1], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
