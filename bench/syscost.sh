#!/bin/bash
# bench/syscost.sh [CALLS]: what watching queue-attribute writes costs every
# other process: ns added to write(2), pwrite64(2), writev(2) of one byte to
# /dev/null and to getppid(2), by iodig slow (the watcher on), slow
# --no-queue-writes, sysfs, and a bpftrace one-liner on the same tracepoints.
# Best of 5 rounds of CALLS calls each (tests/helpers/syscost.c).
set -eu
cd "$(dirname "$0")/.."
calls=${1:-300000}
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
make -s build/helpers/syscost
S=build/helpers/syscost
tmp=$(mktemp -d); trap 'rm -rf $tmp' EXIT
echo "kernel $(uname -r), $(nproc) CPUs; $(date -u +%F); best of 5 x $calls calls"
echo

measure() {	# label, then a command that runs until SIGINT (or nothing)
	local label=$1 pid=""
	shift
	if [ $# -gt 0 ]; then
		"$@" > /dev/null 2>"$tmp/err" & pid=$!
		for i in $(seq 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
		[ -s "$tmp/ready" ] || { cat "$tmp/err"; exit 1; }
	fi
	$S "$calls" > "$tmp/$label"
	[ -z "$pid" ] || { kill -INT $pid; wait $pid || true; }
	rm -f "$tmp/ready"
}
measure none
measure slow ./iodig slow --ready-file "$tmp/ready"
measure slow-nqw ./iodig slow --no-queue-writes --ready-file "$tmp/ready"
measure sysfs ./iodig sysfs --ready-file "$tmp/ready"
BT='tracepoint:syscalls:sys_enter_write { @s[tid] = nsecs; } tracepoint:syscalls:sys_exit_write /@s[tid]/ { delete(@s[tid]); }'
if command -v bpftrace >/dev/null; then
	( bpftrace -e "BEGIN { printf(\"ready\\n\"); } $BT" > "$tmp/bt" 2>&1 & echo $! > "$tmp/btpid"; wait ) &
	for i in $(seq 200); do grep -q ready "$tmp/bt" 2>/dev/null && break; sleep 0.05; done
	$S "$calls" > "$tmp/bpftrace"
	kill -INT "$(cat "$tmp/btpid")"; wait
fi
echo "| ns added per call | write | pwrite64 | writev | getppid |"
echo "|---|---:|---:|---:|---:|"
printf "| (no tracing: ns per call) |"; awk '{printf " %.0f |", $2}' "$tmp/none"; echo
for l in slow slow-nqw sysfs bpftrace; do
	[ -s "$tmp/$l" ] || continue
	case $l in
	slow) name="iodig slow";; slow-nqw) name="iodig slow --no-queue-writes";;
	sysfs) name="iodig sysfs";; bpftrace) name="bpftrace, sys_enter/exit_write only";;
	esac
	printf "| %s |" "$name"
	paste "$tmp/none" "$tmp/$l" | awk '{printf " %+.0f |", $4 - $2}'; echo
done
if [ -s "$tmp/bpftrace" ]; then
	w=$(paste "$tmp/none" "$tmp/slow" "$tmp/bpftrace" | awk 'NR == 1 {printf "%.2f", ($4 - $2) / ($6 - $2)}')
	echo
	echo "write(2): iodig slow adds $w x what the bpftrace one-liner adds (which watches write(2) only)."
fi
