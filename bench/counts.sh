#!/bin/bash
# bench/counts.sh [RUNS] [SECONDS]: lat and snoop side by side against
# /proc/diskstats, RUNS times (default 20) of fio randrw 4k at 4000 IOPS.
# Every run must account for every request: seen + skipped = the kernel's
# count (skipped: completions the kernel ran no BPF program for, see
# docs/DESIGN.md).  Exits 1 on the first run that does not add up.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-20}; secs=${2:-5}
. bench/lib.sh
ios() { awk '{print $1 + $5 + $12 + $16}' "/sys/block/$n/stat"; }
tmp=$(mktemp -d); trap 'losetup -d $dev; rm -f $img; rm -rf $tmp' EXIT
echo "| run | diskstats | lat | lat skipped | snoop records | snoop skipped |"
echo "|---:|---:|---:|---:|---:|---:|"
with_skips=0
for run in $(seq 1 "$runs"); do
	i0=$(ios)
	./iodig lat -d "$n" --json --ready-file "$tmp/r1" > "$tmp/lat.json" 2>/dev/null & p1=$!
	./iodig snoop -d "$n" --json --ready-file "$tmp/r2" > "$tmp/snoop.json" 2>/dev/null & p2=$!
	while [ ! -s "$tmp/r1" ] || [ ! -s "$tmp/r2" ]; do sleep 0.05; done
	rm -f "$tmp/r1" "$tmp/r2"
	fio --name=x --filename="$dev" --direct=1 --rw=randrw --bs=4k --size=200M --rate_iops=2000 \
	    --runtime="$secs" --time_based --ioengine=libaio --iodepth=4 >/dev/null
	kill -INT $p1 $p2; wait $p1; wait $p2
	i=$(( $(ios) - i0 ))
	# lat: timed + unstamped + not issued + skipped; snoop: records + skipped
	read -r l ls < <(jq -rs '([.[] | select(.type == "hist") | .count] | add // 0) as $h
		| [.[] | select(.type == "interval_end")] | "\($h + (map(.unstamped + .not_issued) | add)) \(map(.skipped) | add)"' "$tmp/lat.json")
	read -r s ss < <(jq -rs '"\([.[] | select(.type == "request")] | length) \(.[] | select(.type == "summary") | .skipped)"' "$tmp/snoop.json")
	echo "| $run | $i | $l | $ls | $s | $ss |"
	[ $((ls + ss)) = 0 ] || with_skips=$((with_skips + 1))
	if [ $((l + ls)) != "$i" ] || [ $((s + ss)) != "$i" ]; then
		echo "run $run does not add up: diskstats $i, lat $l + $ls skipped, snoop $s + $ss skipped" >&2
		exit 1
	fi
done
echo
echo "$runs runs add up; $with_skips had completions the kernel ran no BPF program for."
