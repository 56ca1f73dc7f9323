#!/bin/bash
# bench/life.sh [SECONDS] [ROUNDS] [OTHER_IODIG]: the request-life commands
# (issue #3) beside the foundation's lat -D, and beside another build's (the
# one before a change) when given; then snoop's delivery at the device's full
# speed (bench/records.sh).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}; other=${3:-}
. bench/lib.sh
before=()
[ -z "$other" ] || before=(
	"before: lat --phases=^Tracing block I/O=exec $other lat --phases"
	"before: slow 10=^Tracing block I/O=exec $other slow 10"
	"before: snoop=^Tracing block I/O=exec $other snoop -d $n >/dev/null")
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig lat -D=^Tracing block I/O=exec ./iodig lat -D" \
	"iodig lat --phases=^Tracing block I/O=exec ./iodig lat --phases" \
	"iodig slow 10=^Tracing block I/O=exec ./iodig slow 10" \
	"iodig snoop=^Tracing block I/O=exec ./iodig snoop -d $n >/dev/null" \
	"${before[@]}"
# libbpf-tools biosnoop is not in the table: it attaches to blk_account_io_start
# by fentry or kprobe, and this kernel has neither.

# snoop's delivery at the device's full speed, beside bpftrace: bench/records.sh
echo
bench/records.sh "$secs" "$rounds" $other
