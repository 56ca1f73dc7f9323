#!/bin/bash
# bench/why.sh [CALLS]: what `iodig why` costs the machine, beside the tools
# a user would pick instead, in one run:
#  - ns added per system call of a process why does not trace (it is given
#    --comm of another task) and of one it does (--comm of the caller): the
#    write family is in why's list, getppid(2) is not;
#  - ns added per context switch (a pipe ping-pong on one CPU), since
#    sched_switch runs for every switch on the machine.
# Peers: libbpf-tools syscount (raw syscall tracepoints) and offcputime
# (sched_switch), and perf trace -s, system-wide.  Best of 5 rounds each.
set -eu
cd "$(dirname "$0")/.."
calls=${1:-300000}
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
make -s iodig build/helpers/syscost build/helpers/switchcost
S=build/helpers/syscost
W=build/helpers/switchcost
tmp=$(mktemp -d); trap 'rm -rf $tmp' EXIT
echo "kernel $(uname -r), $(nproc) CPUs; $(date -u +%F); best of 5 x $calls calls / $((calls / 3)) round trips"
echo

# measure LABEL READY CMD...: CMD running (READY: a file it writes once
# attached, or a number of seconds to wait), syscost and switchcost run
measure() {
	local label=$1 ready=$2 pid=""
	shift 2
	if [ $# -gt 0 ]; then
		"$@" > "$tmp/$label.out" 2>"$tmp/$label.err" & pid=$!
		if [ "$ready" = file ]; then
			for i in $(seq 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
			[ -s "$tmp/ready" ] || { cat "$tmp/$label.err"; exit 1; }
		else
			sleep "$ready"
		fi
		kill -0 $pid 2>/dev/null || { echo "$label did not start: $(head -3 "$tmp/$label.err")"; return; }
	fi
	$S "$calls" > "$tmp/$label"
	$W $((calls / 3)) >> "$tmp/$label"
	[ -z "$pid" ] || { kill -INT $pid; wait $pid || true; }
	rm -f "$tmp/ready"
}
measure none file
measure why-untraced file ./iodig why --comm nobody_iodig --ready-file "$tmp/ready"
measure why-traced file ./iodig why 1000 --comm syscost --ready-file "$tmp/ready"
measure why-all file ./iodig why 1000 --ready-file "$tmp/ready"
command -v syscount >/dev/null && measure syscount 3 syscount
command -v offcputime >/dev/null && measure offcputime 3 offcputime
command -v perf >/dev/null && measure perf-trace 3 perf trace -s -a -o "$tmp/perf.out"

echo "| ns added | write | pwrite64 | writev | getppid | context switch |"
echo "|---|---:|---:|---:|---:|---:|"
printf "| (no tracing: ns per call / switch) |"; awk '{printf " %.0f |", $2}' "$tmp/none"; echo
for l in why-untraced why-traced why-all syscount offcputime perf-trace; do
	[ -s "$tmp/$l" ] || continue
	case $l in
	why-untraced) name="iodig why --comm OTHER (caller not traced)";;
	why-traced) name="iodig why --comm syscost (caller traced)";;
	why-all) name="iodig why (every process traced)";;
	syscount) name="libbpf-tools syscount";;
	offcputime) name="libbpf-tools offcputime";;
	perf-trace) name="perf trace -s -a";;
	esac
	printf "| %s |" "$name"
	paste "$tmp/none" "$tmp/$l" | awk '{printf " %+.0f |", $4 - $2}'; echo
done
if [ -s "$tmp/syscount" ] && [ -s "$tmp/offcputime" ]; then
	echo
	paste "$tmp/none" "$tmp/why-untraced" "$tmp/syscount" "$tmp/offcputime" | awk '
		NR == 4 { g = ($4 - $2) / ($6 - $2) }
		NR == 5 { s = ($4 - $2) / ($8 - $2) }
		END { printf "untraced getppid(2): why adds %.2f x what syscount adds; a context switch: %.2f x what offcputime adds.\n", g, s }'
fi
