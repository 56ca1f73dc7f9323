#!/bin/bash
# bench/exit.sh [ROUNDS] [OTHER]: Ctrl-C to exit, in ms (the summary out,
# every link gone), under a system-call load (dd writing 1-byte blocks):
# the median and range of ROUNDS for each command that attaches syscall
# tracepoints through perf events (slow, export and record: the queue-write
# watcher's ten; exec: four) and why (raw sys_enter/sys_exit), beside
# bpftrace on slow's ten syscall tracepoints, and beside OTHER (an earlier
# iodig build) in the same run, rounds interleaved (docs/PERFORMANCE.md).
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5}; other=${2:-}
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
make -s iodig
tmp=$(mktemp -d); mkdir "$tmp/ms"
dd if=/dev/zero of=/dev/null bs=1 count=100000000000 2>/dev/null & dd=$!
trap 'kill $dd 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

bt='BEGIN { printf("ready\n"); }'
for c in write pwrite64 writev pwritev pwritev2; do
	bt="$bt tracepoint:syscalls:sys_enter_$c { @e[tid] = nsecs; } tracepoint:syscalls:sys_exit_$c { delete(@e[tid]); }"
done

# once LABEL COMMAND...: start, wait until it is live, Ctrl-C, time the exit
once() {
	local label=$1 pid t0 i
	shift
	rm -f "$tmp/ready"
	case $1 in
	bpftrace) "$@" > "$tmp/ready.out" 2>&1 & ;;
	*) "$@" --ready-file "$tmp/ready" > /dev/null 2> "$tmp/err" & ;;
	esac
	pid=$!
	for i in $(seq 300); do
		[ -s "$tmp/ready" ] && break
		grep -q '^ready' "$tmp/ready.out" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || { echo "$label exited before it was live: $(cat "$tmp/err")" >&2; exit 1; }
		sleep 0.05
	done
	rm -f "$tmp/ready.out"
	sleep 0.5
	t0=$(date +%s%N)
	kill -INT $pid
	wait $pid || true
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >> "$tmp/ms/$label"
}

round() {
	local b
	for b in ./iodig ${other:+"$other"}; do
		local tag=""; [ "$b" = ./iodig ] || tag=" (other)"
		once "slow$tag" "$b" slow 10
		once "export$tag" "$b" export --listen "127.0.0.1:$port"
		once "record$tag" "$b" record -o "$tmp/r"
		once "exec$tag" "$b" exec
		once "why$tag" "$b" why
	done
	once "bpftrace, slow's 10 syscall tracepoints" bpftrace -e "$bt"
}
for r in $(seq "$rounds"); do round; done

echo "Ctrl-C to exit, ms: median (min-max) of $rounds, dd writing 1-byte blocks meanwhile"
echo
echo "| command | ms |"
echo "|---|---:|"
for f in "$tmp"/ms/*; do
	sort -n "$f" | awk -v l="$(basename "$f")" '{a[NR] = $1} END {printf "| %s | %d (%d-%d) |\n", l, a[int((NR + 1) / 2)], a[1], a[NR]}'
done
