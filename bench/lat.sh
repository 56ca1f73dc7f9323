#!/bin/bash
# bench/lat.sh [SECONDS] [ROUNDS]: iodig lat -D beside libbpf-tools biolatency -D
# and a bpftrace equivalent, on a loop device backed by a /dev/shm file.
# Prints the table kept in docs/PERFORMANCE.md.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}
. bench/lib.sh
bt=$(mktemp /tmp/iodig-bench.XXXXXX.bt)
cat > "$bt" <<'BT'
// biolatency -D in bpftrace, from tracepoints (this kernel has no kprobes)
tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
	@usecs[args->dev] = hist((nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}
BEGIN { printf("ready\n"); }
BT
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig lat -D=^Tracing block I/O=exec ./iodig lat -D" \
	"iodig lat=^Tracing block I/O=exec ./iodig lat" \
	"libbpf-tools biolatency -D=Tracing block device=exec stdbuf -oL biolatency -D" \
	"bpftrace (tracepoints)=^ready=exec bpftrace $bt"
rm -f "$bt"
