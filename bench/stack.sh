#!/bin/bash
# bench/stack.sh [SECONDS] [ROUNDS]: the cost per bio on a bio-based disk
# (zram, the one this host has built in: dm, md and bcache need modules)
# beside the cost per request on a plain disk (the loop device), for lat -d,
# slow -d and snoop -d; libbpf-tools biolatency cannot see a bio-based disk.
# Prints the two tables kept in docs/PERFORMANCE.md.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}
. bench/lib.sh
z=$(cat /sys/class/zram-control/hot_add)
trap 'echo 1 > /sys/block/zram$z/reset; echo $z > /sys/class/zram-control/hot_remove; losetup -d $dev; rm -f $img' EXIT
echo 256M > /sys/block/zram$z/disksize
dd if=/dev/urandom of=/dev/zram$z bs=1M count=256 oflag=direct status=none
echo "bio-based: zram$z"
/usr/bin/python3 bench/bench.py /dev/zram$z "$secs" "$rounds" \
	"iodig lat -d zram$z=^Tracing block I/O=exec ./iodig lat -d zram$z" \
	"iodig slow -d zram$z 10=^Tracing block I/O=exec ./iodig slow -d zram$z 10" \
	"iodig snoop -d zram$z=^Tracing block I/O=exec ./iodig snoop -d zram$z >/dev/null"
echo "request-based: $n"
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig lat -d $n=^Tracing block I/O=exec ./iodig lat -d $n" \
	"iodig slow -d $n 10=^Tracing block I/O=exec ./iodig slow -d $n 10" \
	"iodig snoop -d $n=^Tracing block I/O=exec ./iodig snoop -d $n >/dev/null"
