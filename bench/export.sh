#!/bin/bash
# bench/export.sh [SCRAPES] [RSS_SECONDS]: iodig export's cost as Prometheus
# sees it.  10 loop devices get reads, writes, flushes and discards (4 ops x
# 5 phases x 10 disks = 200 histograms); then SCRAPES scrapes of /metrics
# one after another: time and iodig's CPU per scrape, body size.  Then
# RSS_SECONDS (default 600) of light load with a scrape a second: RSS
# sampled every 30 s (it must not grow).  Then iodig record at full device
# speed: records lost and bytes per request in the file.
set -eu
cd "$(dirname "$0")/.."
scrapes=${1:-200}; rss_s=${2:-600}
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
tmp=$(mktemp -d); devs=()
cleanup() { for d in "${devs[@]}"; do losetup -d "$d" 2>/dev/null; done; rm -rf "$tmp" /dev/shm/iodig-bx.*; }
trap cleanup EXIT
for i in $(seq 10); do f=$(mktemp /dev/shm/iodig-bx.XXXXXX); truncate -s 64M "$f"; devs+=("$(losetup -f --show "$f")"); done
echo "kernel $(uname -r), $(nproc) CPUs, 10 loop devices on /dev/shm; $(date -u +%F)"
port=$((30000 + RANDOM % 1000))
./iodig export --listen "127.0.0.1:$port" --ready-file "$tmp/ready" 2>"$tmp/err" & E=$!
while [ ! -s "$tmp/ready" ]; do sleep 0.05; done
for d in "${devs[@]}"; do
	fio --name=x --filename="$d" --direct=1 --rw=randrw --bs=4k --number_ios=500 --fsync=10 --size=32M >/dev/null
	fio --name=t --filename="$d" --rw=randtrim --bs=64k --number_ios=20 --size=32M >/dev/null 2>&1 || true
done
sleep 1.5
cpu() { awk '{print $14 + $15}' /proc/$E/stat; }	# clock ticks
c0=$(cpu); t0=$(date +%s%N)
for i in $(seq "$scrapes"); do curl -s "127.0.0.1:$port/metrics" > "$tmp/m"; done
t1=$(date +%s%N); c1=$(cpu)
hz=$(getconf CLK_TCK)
echo
echo "| scrapes | series (histograms) | lines | bytes | ms per scrape (curl, wall) | iodig CPU ms per scrape |"
echo "|---:|---:|---:|---:|---:|---:|"
echo "| $scrapes | $(grep -c '^iodig_request_seconds_count' "$tmp/m") | $(wc -l < "$tmp/m") | $(wc -c < "$tmp/m") | $(( (t1 - t0) / scrapes / 1000 ))e-3 | $(python3 -c "print(round(($c1 - $c0) * 1000 / $hz / $scrapes, 3))") |"
echo
echo "RSS of iodig export under light load, a scrape a second, sampled every 30 s for $rss_s s (kB):"
fio --name=l --filename="${devs[0]}" --direct=1 --rw=randread --bs=4k --rate_iops=200 --time_based --runtime="$rss_s" --size=32M >/dev/null & F=$!
rss=""; start=$(date +%s)
while [ $(( $(date +%s) - start )) -lt "$rss_s" ]; do
	for i in $(seq 30); do curl -s "127.0.0.1:$port/metrics" > /dev/null; sleep 1; done
	rss="$rss $(awk '/VmRSS/ {print $2}' /proc/$E/status)"
done
wait $F || true
echo "$rss"
kill -INT $E; wait $E || true
echo
echo "iodig record at full device speed (fio randread 4k, libaio iodepth 16, 5 s), SIGUSR1 at the end:"
./iodig record -o "$tmp/full" --max-mb 1024 --keep 60 -d "${devs[1]#/dev/}" --ready-file "$tmp/r2" 2>"$tmp/rec.err" & R=$!
while [ ! -s "$tmp/r2" ]; do sleep 0.05; done
fio --name=f --filename="${devs[1]}" --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=16 --time_based --runtime=5 \
	--size=32M --output-format=json > "$tmp/fio.json"
sleep 0.5; kill -USR1 $R; sleep 2; kill -INT $R; wait $R || true
n=$(./iodig replay --json "$tmp/full-1.rec" | grep -c '"type":"request"')
ios=$(jq '.jobs[0].read.total_ios' "$tmp/fio.json")
echo "  fio: $ios reads ($(( ios / 5 ))/s); in the recording: $n requests, $(stat -c %s "$tmp/full-1.rec") bytes ($(( $(stat -c %s "$tmp/full-1.rec") / (n > 0 ? n : 1) )) bytes a request)"
grep 'recordings written' "$tmp/rec.err" | sed 's/^/  /'
