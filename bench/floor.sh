#!/bin/bash
# bench/floor.sh [SECONDS] [ROUNDS]: the least a request tracer can cost on
# this host, beside lat -D and lat --phases, in one bench.py run (issue #23,
# goal 1; docs/PERFORMANCE.md "The floor").  build/bench/floor holds no
# iodig code: an empty program at the completion (one a request), empty
# programs at Q and at the completion (two), and the smallest Q-to-C timer
# (Q's clock into a slot, C's difference into a histogram).  What the two
# empty programs keep of IOPS bounds every design that runs a program at Q.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}
make -s iodig build/bench/floor
. bench/lib.sh
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"lat -D=^Tracing block I/O=exec ./iodig lat -D" \
	"lat --phases=^Tracing block I/O=exec ./iodig lat --phases" \
	"empty C=^Attached=exec build/bench/floor c" \
	"empty Q and C=^Attached=exec build/bench/floor qc" \
	"Q-to-C timer=^Attached=exec build/bench/floor stamp"
