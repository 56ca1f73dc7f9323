#!/bin/bash
# bench/life.sh [SECONDS] [ROUNDS]: the request-life commands (issue #3) beside
# the foundation's lat -D, then snoop's delivery at the device's full speed.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}
. bench/lib.sh
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig lat -D=^Tracing block I/O=exec ./iodig lat -D" \
	"iodig lat --phases=^Tracing block I/O=exec ./iodig lat --phases" \
	"iodig slow 10=^Tracing block I/O=exec ./iodig slow 10" \
	"iodig snoop=^Tracing block I/O=exec ./iodig snoop -d $n >/dev/null"
# libbpf-tools biosnoop is not in the table: it attaches to blk_account_io_start
# by fentry or kprobe, and this kernel has neither.

echo
echo "snoop at full speed (fio randread 4k, libaio iodepth 32, 2 jobs, ${secs} s), output to a file:"
echo
echo "| buffer | requests/s | records delivered | lost |"
echo "|---|---:|---:|---:|"
for buf in default 4096; do
	opt=""; [ $buf = default ] || opt="--buffer-size $buf"
	out=$(mktemp); rdy=$(mktemp -u)
	./iodig snoop -d "$n" --json $opt --ready-file "$rdy" > "$out" 2>/dev/null &
	pid=$!
	while [ ! -s "$rdy" ]; do sleep 0.05; done
	i0=$(awk -v d="$n" '$3 == d {print $4 + $8}' /proc/diskstats)
	fio --name=r --filename="$dev" --direct=1 --rw=randread --bs=4k --size=256M --time_based \
	    --runtime="$secs" --ioengine=libaio --iodepth=32 --numjobs=2 >/dev/null
	i=$(( $(awk -v d="$n" '$3 == d {print $4 + $8}' /proc/diskstats) - i0 ))
	kill -INT $pid; wait $pid
	got=$(grep -c '"type":"request"' "$out" || true)
	lost=$(grep '"type":"summary"' "$out" | sed 's/.*"lost":\([0-9]*\).*/\1/')
	echo "| $buf | $((i / secs)) | $got | $lost |"
	rm -f "$out" "$rdy"
done
