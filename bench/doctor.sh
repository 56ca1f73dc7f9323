#!/bin/bash
# bench/doctor.sh [SECONDS] [ROUNDS]: doctor's cost beside the engines it
# runs (issue #25: it must not cost more than they do), in one run: the
# request engine as snoop and record run it, why's engine over every process
# (what doctor runs), doctor, and doctor --no-calls (the request engine
# alone, as record).  fio randread 4k libaio qd16 on a loop device.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}
. bench/lib.sh
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig snoop=^Tracing block I/O=exec ./iodig snoop -d $n >/dev/null" \
	"iodig record=^Recording block I/O=exec ./iodig record -o /tmp/iodig-bench-rec --keep 2 --max-mb 16" \
	"iodig why 1=^Tracing slow=exec ./iodig why 1 >/dev/null" \
	"iodig doctor=^Watching block I/O=exec ./iodig doctor 3600 >/dev/null" \
	"iodig doctor --no-calls=^Watching block I/O=exec ./iodig doctor --no-calls 3600 >/dev/null"
rm -f /tmp/iodig-bench-rec-*.rec
