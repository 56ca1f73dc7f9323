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
		eval "${after_ready:-}"	# (bench/why.sh's spell: a traced thread put to sleep in a call)
	fi
	$S "$calls" > "$tmp/$label"
	$W $((calls / 3)) >> "$tmp/$label"
	# iodig's own programs: BPF run time per run, from the kernel's stats
	case $label in why*|syscount*) bpftool prog show --json > "$tmp/$label.progs";; esac
	if [ -n "$pid" ]; then	# Ctrl-C to exit, everything detached
		local t0=$(date +%s%N)
		kill -INT $pid; wait $pid || true
		echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$tmp/$label.exit"
	fi
	rm -f "$tmp/ready"
}
measure none file
measure why-untraced-nqw file ./iodig why --comm nobody_iodig --no-queue-writes --ready-file "$tmp/ready"
measure why-untraced-ev file ./iodig why --comm nobody_iodig --no-queue-writes --syscall-events --ready-file "$tmp/ready"
measure why-untraced file ./iodig why --comm nobody_iodig --ready-file "$tmp/ready"
measure why-traced file ./iodig why 1000 --comm syscost --ready-file "$tmp/ready"
measure why-all file ./iodig why 1000 --ready-file "$tmp/ready"
measure why-all-walk file ./iodig why 1000 --walk-each --ready-file "$tmp/ready"
# WHY_BEFORE=BINARY: another build of iodig in the same run (before and after)
if [ -n "${WHY_BEFORE:-}" ]; then
	measure why-untraced-before file "$WHY_BEFORE" why --comm nobody_iodig --ready-file "$tmp/ready"
	measure why-traced-before file "$WHY_BEFORE" why 1000 --comm syscost --ready-file "$tmp/ready"
	measure why-all-before file "$WHY_BEFORE" why 1000 --ready-file "$tmp/ready"
fi
# a spell all through: a traced thread asleep in a call (a read of a FIFO
# nobody writes, begun once why is attached), so every task is followed
mkfifo "$tmp/fifo"; cp /bin/cat "$tmp/spellwait"
spell='"$tmp/spellwait" <> "$tmp/fifo" > /dev/null & spid=$!; sleep 0.3'
after_ready=$spell measure why-spell file ./iodig why 1000 --comm spellwait --syscalls read --no-queue-writes --ready-file "$tmp/ready"
kill $spid
command -v syscount >/dev/null && measure syscount 3 syscount
# syscount counts at exit alone; -L times each call, entry and exit, as why does
command -v syscount >/dev/null && measure syscount-L 3 syscount -L
command -v offcputime >/dev/null && measure offcputime 3 offcputime
command -v perf >/dev/null && measure perf-trace 3 perf trace -s -a -o "$tmp/perf.out"

echo "| ns added | write | pwrite64 | writev | getppid | context switch |"
echo "|---|---:|---:|---:|---:|---:|"
printf "| (no tracing: ns per call / switch) |"; awk '{printf " %.0f |", $2}' "$tmp/none"; echo
for l in why-untraced-nqw why-untraced-ev why-untraced why-traced why-all why-all-walk why-untraced-before why-traced-before why-all-before why-spell syscount syscount-L offcputime perf-trace; do
	[ -s "$tmp/$l" ] || continue
	case $l in
	why-untraced-nqw) name="iodig why --comm OTHER --no-queue-writes";;
	why-untraced-ev) name="iodig why --comm OTHER --no-queue-writes --syscall-events";;
	why-untraced) name="iodig why --comm OTHER (caller not traced)";;
	why-traced) name="iodig why --comm syscost (caller traced)";;
	why-all) name="iodig why (every process traced)";;
	why-all-walk) name="iodig why --walk-each (every process traced, each stack walked)";;
	why-untraced-before) name="iodig why --comm OTHER, the build in WHY_BEFORE";;
	why-traced-before) name="iodig why --comm syscost, the build in WHY_BEFORE";;
	why-all-before) name="iodig why, the build in WHY_BEFORE (every process traced)";;
	why-spell) name="iodig why --comm OTHER --syscalls read --no-queue-writes, OTHER asleep in a call (a spell)";;
	syscount) name="libbpf-tools syscount";;
	syscount-L) name="libbpf-tools syscount -L (each call timed)";;
	offcputime) name="libbpf-tools offcputime";;
	perf-trace) name="perf trace -s -a";;
	esac
	printf "| %s |" "$name"
	paste "$tmp/none" "$tmp/$l" | awk '{printf " %+.0f |", $4 - $2}'; echo
done
echo
echo "Ctrl-C to exit (the summary out, every link gone):"
echo
echo "| run | ms |"
echo "|---|---:|"
for l in why-untraced-nqw why-untraced-ev why-untraced why-traced why-all why-all-walk why-untraced-before why-traced-before why-all-before why-spell; do
	[ -s "$tmp/$l.exit" ] && echo "| $l | $(cat "$tmp/$l.exit") |"
done
# the same runs again with the kernel's BPF stats on (they cost a little
# themselves, so not during the table above)
echo 1 > /proc/sys/kernel/bpf_stats_enabled
trap 'echo 0 > /proc/sys/kernel/bpf_stats_enabled; rm -rf $tmp' EXIT
measure why-untraced-nqw-stats file ./iodig why --comm nobody_iodig --no-queue-writes --ready-file "$tmp/ready"
measure why-untraced-stats file ./iodig why --comm nobody_iodig --ready-file "$tmp/ready"
measure why-traced-stats file ./iodig why 1000 --comm syscost --ready-file "$tmp/ready"
measure why-all-stats file ./iodig why 1000 --ready-file "$tmp/ready"
measure why-all-walk-stats file ./iodig why 1000 --walk-each --ready-file "$tmp/ready"
if [ -n "${WHY_BEFORE:-}" ]; then
	measure why-untraced-before-stats file "$WHY_BEFORE" why --comm nobody_iodig --ready-file "$tmp/ready"
	measure why-traced-before-stats file "$WHY_BEFORE" why 1000 --comm syscost --ready-file "$tmp/ready"
	measure why-all-before-stats file "$WHY_BEFORE" why 1000 --ready-file "$tmp/ready"
fi
after_ready=$spell measure why-spell-stats file ./iodig why 1000 --comm spellwait --syscalls read --no-queue-writes --ready-file "$tmp/ready"
kill $spid
command -v syscount >/dev/null && measure syscount-stats 3 syscount
command -v syscount >/dev/null && measure syscount-L-stats 3 syscount -L
echo 0 > /proc/sys/kernel/bpf_stats_enabled
echo
echo "BPF run time per run of why's programs (kernel.bpf_stats_enabled, the same runs again):"
echo
echo "| run | sys_enter | sys_exit | sched_switch | sched_wakeup | sched_waking |"
echo "|---|---:|---:|---:|---:|---:|"
for l in why-untraced-nqw why-untraced why-traced why-all why-all-walk why-untraced-before why-traced-before why-all-before why-spell syscount syscount-L; do
	[ -s "$tmp/$l-stats.progs" ] || continue
	python3 - "$tmp/$l-stats.progs" "$l" <<'PY'
import json, sys
progs = json.load(open(sys.argv[1]))
row = []
# the enter programs: one per argument count (why_sc_enter0..3), or the raw
# one; syscount's are sys_enter and sys_exit
for names in (("why_enter", "why_sc_enter", "sys_enter"), ("why_exit", "why_sc_exit", "sys_exit"),
              ("why_switch",), ("why_wakeup",), ("why_waking",)):
    ps = [p for p in progs if p.get("name", "") in names or (len(names) > 1 and p.get("name", "").startswith(names[1]))]
    cnt = sum(p.get("run_cnt", 0) for p in ps)
    ns = sum(p.get("run_time_ns", 0) for p in ps)
    row.append("%.0f ns (%d runs)" % (ns / cnt, cnt) if cnt else "-")
print("| %s | %s |" % (sys.argv[2], " | ".join(row)))
PY
done
echo
echo "The context-switch column above includes a read(2) and a write(2) per switch (the"
echo "ping-pong), which why traces: the sched_switch row here is the switch's own cost."
if [ -s "$tmp/syscount" ] && [ -s "$tmp/offcputime" ]; then
	echo
	paste "$tmp/none" "$tmp/why-untraced" "$tmp/syscount" "$tmp/offcputime" "$tmp/why-untraced-nqw" "$tmp/why-untraced-ev" | awk '
		NR == 1 { w = ($10 - $2) / ($6 - $2); we = ($12 - $2) / ($6 - $2) }
		NR == 4 { g = ($4 - $2) / ($6 - $2); ge = ($12 - $2) / ($6 - $2) }
		NR == 5 { s = ($4 - $2) / ($8 - $2) }
		END { printf "getppid(2), a call why does not trace: why adds %.2f x what syscount adds (%.2f x with --syscall-events);\n", g, ge
		      printf "write(2) of a process why does not trace (--no-queue-writes): %.2f x (%.2f x with --syscall-events);\n", w, we
		      printf "a context switch: %.2f x what offcputime adds.\n", s }'
fi
if [ -s "$tmp/syscount-L" ]; then	# the peer that times each call, as why does
	paste "$tmp/none" "$tmp/why-untraced" "$tmp/why-traced" "$tmp/syscount-L" | awk '
		NR == 1 { printf "write(2) against syscount -L: a process why does not trace %.2f x, one it traces %.2f x.\n",
			  ($4 - $2) / ($8 - $2), ($6 - $2) / ($8 - $2) }'
fi
