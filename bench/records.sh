#!/bin/bash
# bench/records.sh [SECONDS] [ROUNDS] [OTHER_IODIG]: a record a request out to
# a file at the device's full speed (fio randread 4k, libaio iodepth 32, 2
# jobs): iodig snoop in text and JSON (and with a 4 KiB ring) beside
# bpftrace printing a line at each completion, and another build's snoop (the
# one before a change) when given.
# For each: requests/s, lines delivered, records lost, and the reader's own
# CPU (user + system, /proc/PID/stat) per line delivered.  Medians of ROUNDS.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}; other=${3:-}
. bench/lib.sh
hz=$(getconf CLK_TCK)
bt='tracepoint:block:block_rq_complete /args->dev == DEV/ { printf("%u %s %llu %u %d\n", pid, comm, args->sector, args->nr_sector, args->error); }'
devnum=$(( $(stat -c %t "$dev" | sed 's/^/0x/') << 20 | $(stat -c %T "$dev" | sed 's/^/0x/') ))
one() {	# NAME LINE_REGEX COMMAND...: "reqs/s lines lost us_per_line"
	local name=$1 re=$2 out rdy p i0 i t0 t1 lost got
	shift 2
	out=$(mktemp); rdy=$(mktemp -u)
	case $name in
	bpftrace*) "$@" > "$out" 2>/dev/null & p=$!
		   until grep -q '^Attaching' "$out" 2>/dev/null; do kill -0 $p || exit 1; sleep 0.05; done ;;
	*) "$@" --ready-file "$rdy" > "$out" 2>"$out.err" & p=$!
	   until [ -s "$rdy" ]; do kill -0 $p || exit 1; sleep 0.05; done ;;
	esac
	t0=$(awk '{print $14 + $15}' /proc/$p/stat)
	i0=$(awk -v d="$n" '$3 == d {print $4 + $8}' /proc/diskstats)
	fio --name=r --filename="$dev" --direct=1 --rw=randread --bs=4k --size=256M --time_based \
	    --runtime="$secs" --ioengine=libaio --iodepth=32 --numjobs=2 >/dev/null
	i=$(( $(awk -v d="$n" '$3 == d {print $4 + $8}' /proc/diskstats) - i0 ))
	sleep 0.3	# what waits in its buffers
	t1=$(awk '{print $14 + $15}' /proc/$p/stat)
	kill -INT $p; wait $p || true
	got=$(grep -c "$re" "$out" || true)
	lost=$(cat "$out" "$out.err" 2>/dev/null | grep -o '"lost":[0-9]*\|[0-9]* lost' | grep -o '[0-9]*' | head -1 || true)
	echo "$((i / secs)) $got ${lost:--} $(awk -v t=$((t1 - t0)) -v hz="$hz" -v g="$got" 'BEGIN {printf "%.2f", g ? t / hz * 1e6 / g : 0}')"
	rm -f "$out" "$out.err" "$rdy"
}
med() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
row() {	# NAME LINE_REGEX COMMAND...
	local name=$1 r k res=""
	r=$(for k in $(seq "$rounds"); do one "$@"; done)
	for k in 1 2 3 4; do res="$res | $(echo "$r" | awk -v k=$k '{print $k}' | med)"; done
	echo "| $name$res |"
}
echo "fio randread 4k, libaio iodepth 32, 2 jobs, $secs s; output to a file; medians of $rounds"
echo
echo "| reader | requests/s | lines delivered | lost | reader CPU us a line |"
echo "|---|---:|---:|---:|---:|"
row "bpftrace printf at block_rq_complete" '^[0-9]' bpftrace -e "${bt//DEV/$devnum}"
row "iodig snoop" ' read ' ./iodig snoop -d "$n"
row "iodig snoop --json" '"type":"request"' ./iodig snoop -d "$n" --json
row "iodig snoop --json --buffer-size 4096" '"type":"request"' ./iodig snoop -d "$n" --json --buffer-size 4096
if [ -n "$other" ]; then
	row "before: snoop" ' read ' "$other" snoop -d "$n"
	row "before: snoop --json" '"type":"request"' "$other" snoop -d "$n" --json
fi
