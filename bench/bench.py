#!/usr/bin/python3
"""Side-by-side cost of block I/O tracers, in one run, on one loop device.

For each tool: BPF ns per request (kernel.bpf_stats_enabled run_time_ns of
the programs the tool's process owns, over the requests /proc/diskstats saw
complete), CPU ns per request, sampled (below), IOPS traced / untraced (interleaved runs, each traced run against
the mean of the untraced runs around it), peak RSS (VmHWM) and the time from
exec to tracing live.  Prints a Markdown table.

IOPS traced comes from a run of its own with bpf_stats off, as users run
the tool: the meter costs every program run two clock reads and a per-CPU
update, most of it outside what it times (getppid(2) beside why's two
raw syscall tracepoints: 82 to 223 ns more a call with it on than off,
docs/PERFORMANCE.md, "The meter's own cost").  The ratio from the timed run is
printed too (bpf_stats on), as earlier tables had it.

bpf_stats times a program's run and nothing around it: not the dispatch that
calls it, not what a perf-event tracepoint (bpftrace's tracepoint:; the
counting perf event iodig's `skipped` used until 517112c) does before and
after its program, nor the tool's own process.  The sampled column has all of them: in
a second run of fio with bpf_stats off, perf samples every CPU (cpu-clock,
with kernel call chains); a sample is the tool's when its chain passes
through a tracepoint's probes (__traceiter_*, bpf_trace_run*, perf_trace_*,
trace_call_bpf, a BPF program); the tool's own threads' CPU time
(schedstat) is added; the sum over the requests diskstats saw complete.

On a VM the host moves the vCPUs: a cache line crossed between CPUs 0 and 1
in 40-50 ns at one moment and 180-190 at the next on the same day, and a
request engine's completion reads a line its submission wrote.  So right
before each traced run, build/bench/linepong measures that crossing (when
built: make build/bench/linepong); each tool's median is its own column.

Usage: bench.py DEVICE SECONDS ROUNDS TOOLSPEC...
  TOOLSPEC is NAME=READY_REGEX=COMMAND (COMMAND run by sh).  The tool is live
  when READY_REGEX matches a line of its stdout or stderr.  With BENCH_JSON=FILE
  in the environment, the medians are also written to FILE as JSON.
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time


def diskstat_ios(dev):
    name = os.path.basename(dev)
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == name:
                return int(p[3]) + int(p[7])
    raise SystemExit(f"{name} not in /proc/diskstats")


def fio(dev, secs):
    out = subprocess.run(
        ["fio", "--name=b", f"--filename={dev}", "--direct=1", "--rw=randread", "--bs=4k",
         "--ioengine=libaio", "--iodepth=16", "--time_based", f"--runtime={secs}",
         "--size=256M", "--output-format=json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["jobs"][0]["read"]["iops"]


def prog_ids(pid):
    """BPF programs a process holds: prog and link fds name a prog_id in
    fdinfo (Debian's bpftool has no pid iterator to tell us)."""
    ids = set()
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def prog_time(pid):
    out = subprocess.run(["bpftool", "prog", "show", "--json"], check=True,
                         capture_output=True, text=True).stdout
    ids = prog_ids(pid)
    return sum(p.get("run_time_ns", 0) for p in json.loads(out) if p["id"] in ids)


# a kernel frame that runs only because a probe is attached to a tracepoint
PROBE_FRAMES = ("__traceiter_", "__bpf_trace_", "bpf_trace_run", "perf_trace_", "trace_call_bpf",
                "bpf_prog_")
HZ = 4999


def thread_cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def probe_samples(data, skip_pid):
    """Samples whose kernel call chain passes through a tracepoint's probes,
    the tool's own process left out (its CPU time is counted whole)."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,ip,sym"],
                         capture_output=True, text=True, errors="replace").stdout
    n = total = 0
    for sample in out.split("\n\n"):
        lines = sample.strip().split("\n")
        if not lines[0].strip():
            continue
        total += 1
        if lines[0].split()[0] == str(skip_pid):
            continue
        if any(len(f) > 1 and f[1].startswith(PROBE_FRAMES) for f in (l.split() for l in lines[1:])):
            n += 1
    return n, total


def sampled_ns(dev, secs, pid):
    """CPU ns a request the tool costs, sampled, over one fio run."""
    data = f"/tmp/iodig-bench-perf.{os.getpid()}"
    perf = subprocess.Popen(["perf", "record", "-q", "-a", "-g", "-F", str(HZ), "-o", data,
                             "--", "sleep", str(secs)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ios, cpu = diskstat_ios(dev), thread_cpu_ns(pid) if pid else 0
    fio(dev, secs)
    perf.wait()
    reqs = diskstat_ios(dev) - ios
    own = thread_cpu_ns(pid) - cpu if pid else 0
    n, _ = probe_samples(data, pid)
    os.unlink(data)
    return (n * 1e9 / HZ + own) / reqs


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


RUNNING = []  # tools started and not yet stopped: killed if the bench stops early


def foreign_programs():
    """BPF programs loaded before the bench starts (bpftool's list): one
    left attached to a block tracepoint costs every request of every run."""
    try:
        out = subprocess.run(["bpftool", "prog", "list", "-j"], capture_output=True, text=True).stdout
        return [f"{p.get('id')} {p.get('type')} {p.get('name', '')}" for p in json.loads(out or "[]")
                if p.get("type") in ("tracepoint", "raw_tracepoint", "tracing", "kprobe", "perf_event")]
    except (OSError, ValueError):
        return []


class Tool:
    def __init__(self, spec):
        self.name, ready, self.cmd = spec.split("=", 2)
        self.ready = re.compile(ready)
        self.ns, self.ratio, self.rss, self.startup, self.cpu, self.line = [], [], [], [], [], []
        self.ratio_metered = []

    def start(self):
        t0 = time.monotonic()
        self.p = subprocess.Popen(self.cmd, shell=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, start_new_session=True)
        RUNNING.append(self)
        live = threading.Event()

        def reader():
            for line in self.p.stdout:
                if not live.is_set() and self.ready.search(line):
                    live.set()
        threading.Thread(target=reader, daemon=True).start()
        if not live.wait(60):
            raise SystemExit(f"{self.name}: not ready after 60 s")
        self.startup.append(time.monotonic() - t0)
        # the traced process is the shell's child when sh -c execs it
        self.pid = self.p.pid

    def stop(self):
        self.rss.append(vm_hwm_kb(self.pid) / 1024.0)
        os.killpg(self.p.pid, signal.SIGINT)
        # bpftrace prints its maps at exit, a stack map's stacks each
        # symbolized: on a busy round that took over 30 s (2026-12-02)
        try:
            self.p.wait(120)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
            print(f"  {self.name}: still running 120 s after SIGINT, killed", file=sys.stderr)
        RUNNING.remove(self)


LINEPONG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bench", "linepong")


def line_ns():
    """ns a cache line takes between CPUs 0 and 1 now, or None (not built)."""
    if not os.access(LINEPONG, os.X_OK):
        return None
    return float(subprocess.run([LINEPONG], capture_output=True, text=True, check=True).stdout)


def refuse_foreign():
    """Stops the bench where tracing programs are loaded already (2026-12-02:
    a bpftrace that a failed bench left behind cost each bio 4 us in every
    bench after it; 2026-12-03: a hand-started lat --phases under pair.sh)."""
    foreign = foreign_programs()
    if foreign and os.environ.get("BENCH_FOREIGN") != "ok":
        raise SystemExit("BPF programs are loaded already (bpftool prog list: " +
                         ", ".join(foreign[:5]) + "): they would cost every run; "
                         "stop them, or set BENCH_FOREIGN=ok")


def main():
    if sys.argv[1:] == ["--refuse-foreign"]:  # bench/pair.sh, which runs no bench.py
        refuse_foreign()
        return
    dev, secs, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tools = [Tool(s) for s in sys.argv[4:]]
    refuse_foreign()
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"], check=True)
    fio(dev, 1)  # warm up
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"], check=True)
    idle = sampled_ns(dev, secs, 0)  # no tool: what the column reads with nothing attached
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"], check=True)
    base = [fio(dev, secs)]
    for _ in range(rounds):
        for t in tools:
            t.start()
            t.line.append(line_ns())
            before_ios, before_ns = diskstat_ios(dev), prog_time(t.pid)
            iops_metered = fio(dev, secs)
            reqs = diskstat_ios(dev) - before_ios
            t.ns.append((prog_time(t.pid) - before_ns) / reqs)
            subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"], check=True)
            t.cpu.append(sampled_ns(dev, secs, t.pid))
            iops = fio(dev, secs)  # as the tool runs for its users: no meter, no sampling
            subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"], check=True)
            t.stop()
            after = fio(dev, secs)
            untraced = statistics.mean([base[-1], after])
            t.ratio.append(iops / untraced)
            t.ratio_metered.append(iops_metered / untraced)
            base.append(after)
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"], check=True)

    med = statistics.median
    ref = tools[0]
    print(f"fio randread 4k, libaio iodepth 16, {secs} s runs, {rounds} rounds, "
          f"untraced {med(base):.0f} IOPS (median of {len(base)})\n")
    line = lambda t: "-" if None in t.line else f"{med(t.line):.0f}"
    print("| tool | BPF ns/request | vs first | CPU ns/request, sampled | vs first | IOPS traced/untraced "
          "| peak RSS MB | vs first | exec to ready s | vs first | line ns | IOPS kept, bpf_stats on |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in tools:
        print(f"| {t.name} | {med(t.ns):.0f} | {med(t.ns) / med(ref.ns):.2f}x | {med(t.cpu):.0f} "
              f"| {med(t.cpu) / med(ref.cpu):.2f}x | {med(t.ratio):.3f} "
              f"| {med(t.rss):.1f} | {med(t.rss) / med(ref.rss):.2f}x | {med(t.startup):.3f} "
              f"| {med(t.startup) / med(ref.startup):.2f}x | {line(t)} | {med(t.ratio_metered):.3f} |")
    if os.environ.get("BENCH_JSON"):  # the medians, for bench/goals.sh
        with open(os.environ["BENCH_JSON"], "w") as f:
            json.dump({"untraced_iops": med(base), "idle_sampled_ns": idle,
                       "tools": {t.name: {"ns": med(t.ns), "sampled_ns": med(t.cpu), "iops_kept": med(t.ratio),
                                          "iops_kept_metered": med(t.ratio_metered),
                                          "rss_mb": med(t.rss), "startup_s": med(t.startup),
                                          "line_ns": None if None in t.line else med(t.line)}
                                 for t in tools}}, f)
    print("\nmedians over rounds; BPF ns/request = run_time_ns of the tool's programs / requests completed;")
    print(f"CPU ns/request, sampled = perf's samples ({HZ} Hz, every CPU) in a tracepoint's probes, and the")
    print(f"tool's own CPU time, / requests completed (with no tool attached it read {idle:.0f});")
    print("line ns = a cache line's crossing between CPUs 0 and 1 right before each traced run (bench/linepong);")
    print("IOPS traced/untraced from a run with bpf_stats off, as users run the tool; bpf_stats on: from the run")
    print("that times the programs (the meter's own cost included)")


if __name__ == "__main__":
    try:
        main()
    finally:
        for t in RUNNING:
            os.killpg(t.p.pid, signal.SIGKILL)
