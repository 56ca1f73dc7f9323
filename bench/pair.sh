#!/bin/bash
# bench/pair.sh "IODIG ARGS" ROUNDS BUILD_A BUILD_B: two builds of iodig
# attached at once, so that every request runs both builds' programs under
# the same noise (a loaded host swings single runs by ±50 ns a request),
# beside fio randread 4k (libaio, iodepth 16) for 3 s a round.  Each build's
# own --stats gives its Q, G, I (block_rq_issue) and C ns a run (0 where it
# has none).  @B@ in
# the arguments becomes 1 or 2, the build's place, for what two runs cannot
# share (record's -o, export's port).  The build attached first pays
# more (it brings the request's lines in), so the order is swapped every
# round and the paired difference is averaged over two rounds.  PAIR_KEEP=FILE
# keeps each round's figures (round, position, build, Q, C, G).
# docs/PERFORMANCE.md, "One transfer".
set -eu
cd "$(dirname "$0")/.."
args=$1 rounds=$2 A=$3 B=$4
# no pairs beside tracing programs loaded already (bench.py says which)
/usr/bin/python3 bench/bench.py --refuse-foreign || exit 1
. bench/lib.sh
out=$(mktemp -d); res=$out/res
for i in $(seq "$rounds"); do
	if [ $((i % 2)) = 1 ]; then first=$A second=$B; else first=$B second=$A; fi
	$first ${args//@B@/1} --stats -d "$n" > "$out/1" 2>&1 & p1=$!
	sleep 0.7
	$second ${args//@B@/2} --stats -d "$n" > "$out/2" 2>&1 & p2=$!
	sleep 1.2
	build/bench/linepong >> "$out/line"
	fio --name=pair --filename="$dev" --rw=randread --bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
	    --runtime=3 --time_based --output-format=terse > /dev/null 2>&1
	kill -INT $p1 $p2; wait $p1 $p2 || true
	for f in 1 2; do
		[ $f = 1 ] && b=$first || b=$second
		awk -v b="$b" -v f=$f -v r="$i" '/life_queue:/ {q = $(NF-3)} /life_getrq:/ {g = $(NF-3)}
			/life_issue:/ {d = $(NF-3)} /life_complete:/ {c = $(NF-3)} END {print r, f, b, q, c, g + 0, d + 0}' "$out/$f" >> "$res"
	done
done
python3 - "$res" "$A" "$B" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
a, b = sys.argv[2], sys.argv[3]
get = lambda who, r: [(int(x[3]), int(x[5]), int(x[6]) if len(x) > 6 else 0, int(x[4])) for x in rows if x[2] == who and int(x[0]) == r][0]
n = max(int(x[0]) for x in rows)
for who in (a, b):
    v = [get(who, r) for r in range(1, n + 1)]
    print("%-30s Q %4d  G %4d  I %4d  C %4d  all %4d  (median of %d)" % (who, st.median(x[0] for x in v),
          st.median(x[1] for x in v), st.median(x[2] for x in v), st.median(x[3] for x in v),
          st.median(sum(x) for x in v), n))
d = [sum(get(a, r)) - sum(get(b, r)) for r in range(1, n + 1)]
pairs = [(d[i] + d[i + 1]) / 2 for i in range(0, n - 1, 2)]
print("A - B, a request, each pair of rounds (one in each order):", " ".join("%.0f" % p for p in pairs))
PY
echo "a cache line between CPUs 0 and 1 before each round, ns (bench/linepong): $(paste -sd' ' "$out/line")"
[ -n "${PAIR_KEEP:-}" ] && cp "$res" "$PAIR_KEEP"; rm -rf "$out"
