#!/bin/bash
# bench/startup.sh [OTHER_IODIG] [STARTS]: for each always-on command, exec
# to ready (ms), peak RSS (VmHWM, MB) and RSS once ready, the median of
# STARTS (default 5) starts, idle; beside another build's binary (the one
# before a change) when given, started in turn, same boot.
set -eu
cd "$(dirname "$0")/.."
other=${1:-}; starts=${2:-5}
. bench/lib.sh
port=$((32000 + RANDOM % 1000))
one() {	# BINARY ARGS...: "ms hwm_kB rss_kB" of one start
	local b=$1 r t0 p h s
	shift
	r=$(mktemp -u /tmp/iodig-bench-ready.XXXXXX)
	t0=$(date +%s%N)
	"$b" "$@" --ready-file "$r" >/dev/null 2>&1 & p=$!
	while [ ! -s "$r" ]; do kill -0 $p 2>/dev/null || { echo "$b $*: exited" >&2; exit 1; }; sleep 0.005; done
	echo "$(( ($(date +%s%N) - t0) / 1000000 )) $(awk '/^VmHWM/ {h = $2} /^VmRSS/ {s = $2} END {print h, s}' /proc/$p/status)"
	kill -INT $p; wait $p || true; rm -f "$r"
}
med() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
row() {	# BINARY ARGS...: "ms hwm rss" medians
	local b=$1 i out
	shift
	out=$(for i in $(seq "$starts"); do one "$b" "$@"; done)
	echo "$(echo "$out" | awk '{print $1}' | med) $(echo "$out" | awk '{print $2}' | med) $(echo "$out" | awk '{print $3}' | med)"
}
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
if [ -n "$other" ]; then
	echo "| command | exec to ready ms, before / after | peak RSS MB, before / after | RSS at ready MB, before / after |"
	echo "|---|---:|---:|---:|"
else
	echo "| command | exec to ready ms | peak RSS MB | RSS at ready MB |"
	echo "|---|---:|---:|---:|"
fi
for c in "lat -d $n" "slow 10" "snoop -d $n" "top -b 1" "export --listen 127.0.0.1:$port" "record -o /tmp/iodig-bench-rec"; do
	set -- $(row ./iodig $c)
	if [ -n "$other" ]; then
		a="$1 $2 $3"; set -- $(row "$other" $c) $a
		echo "| ${c%% --listen*} | $1 / $4 | $(mb $2) / $(mb $5) | $(mb $3) / $(mb $6) |"
	else
		echo "| ${c%% --listen*} | $1 | $(mb $2) | $(mb $3) |"
	fi
done
