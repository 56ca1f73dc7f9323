# func on user functions (uprobes): exact call counts, and each duration
# against the helper's own clocks of the same calls (CLOCK_MONOTONIC, in
# $GO.times): read inside each function and around each call by its caller,
# they bracket what the probes at entry and return time, so each of
# iodig's statistics lies between the same statistic of the two, give or
# take its 3.125% (a bucket's half width).  A task delayed between a probe
# and a clock read stays inside the bracket (seen in CI against the inside
# clock alone: leaf p90 11.27 ms by the probes, 10.69 inside).  The sleeps
# themselves are only known not to be shorter than asked: on a loaded CI
# machine they oversleep by milliseconds (a 10 ms recursion level at 12.8 ms).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
B="$TOP/build/helpers/functest"
[ -x "$B" ] || die "no $B: run make build/helpers/functest"
"$B" "$T/go" 20 10 5 4 & FT=$!
defer "kill $FT 2>/dev/null"
start_iodig "$T/f.json" func -p "$FT" "$B:leaf" "$B:outer" "$B:recurse" --json
touch "$T/go"
wait $FT || die "functest failed"
stop_iodig
get() { jq -s "[.[] | select(.type == \"hist\" and .function == \"$B:$1\")][0].$2" "$T/f.json"; }
# own TIMES FUNC STAT [EVERY OFFSET]: the helper's exact STAT (count, min,
# max, sum, pNN by nearest rank) of FUNC's calls, or of every EVERY-th from OFFSET
own() {
	python3 - "$@" <<'PY'
import math, sys
times, func, stat = sys.argv[1], sys.argv[2], sys.argv[3]
every, off = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (1, 0)
for line in open(times):
    w = line.split()
    if w[0] == func:
        v = sorted([int(x) for x in w[1:]][off::every])
if stat == "count": print(len(v))
elif stat == "min": print(v[0])
elif stat == "max": print(v[-1])
elif stat == "sum": print(sum(v))
else: print(v[math.ceil(int(stat[1:]) / 100 * len(v)) - 1])
PY
}
# near GOT_NS TIMES FUNC STAT WANT_MS WHAT [EVERY OFFSET]: iodig's value lies
# between the helper's STAT inside and around, each give or take 3.125%, and
# the helper's inside is at least what was asked
near() {
	local g=$1 times=$2 func=$3 stat=$4 w=$5 what=$6 lo hi
	shift 6
	lo=$(own "$times" "$func" "$stat" "$@")
	hi=$(own "$times" "$func:around" "$stat" "$@")
	python3 -c "import sys; g, lo, hi, w = $g, $lo, $hi, $w * 1e6; e = 0.03125
sys.exit(0 if lo >= w and lo * (1 - e) <= g <= hi * (1 + e) else 1)" ||
		die "$what: iodig $(python3 -c "print($g/1e6)") ms, the helper's clocks $(python3 -c "print($lo/1e6)") inside and $(python3 -c "print($hi/1e6)") around (at least $w ms asked)"
	ok "$what: $(python3 -c "print(round($g/1e6, 3))") ms, the helper's clocks $(python3 -c "print(round($lo/1e6, 3))") to $(python3 -c "print(round($hi/1e6, 3))") ($w ms asked)"
}
# leaf: 20 direct calls of 10 ms + 1 from outer
assert_eq "$(get leaf count)" 21 "leaf calls"
assert_eq "$(own "$T/go.times" leaf count)" 21 "leaf calls by the helper's count"
near "$(get leaf p50_ns)" "$T/go.times" leaf p50 10 "leaf p50"
near "$(get leaf p90_ns)" "$T/go.times" leaf p90 10 "leaf p90"
# outer sleeps 10 ms and calls leaf (10 ms): nesting gives 20 ms, not 10
assert_eq "$(get outer count)" 1 "outer calls"
near "$(get outer max_ns)" "$T/go.times" outer max 20 "outer (nesting leaf)"
# recurse(4) five times, 5 ms a level: 20 calls of 5, 10, 15, 20 ms, five each
assert_eq "$(get recurse count)" 20 "recurse calls"
near "$(get recurse min_ns)" "$T/go.times" recurse min 5 "innermost recursion"
near "$(get recurse p90_ns)" "$T/go.times" recurse p90 20 "outermost recursion (p90: the top five are 20 ms levels)"
near "$(get recurse sum_ns)" "$T/go.times" recurse sum 250 "all recursion (5 x (5+10+15+20))"
near "$(get recurse p50_ns)" "$T/go.times" recurse p50 10 "recursion p50 (the 10th of 20: a 10 ms level)"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end")][0] | .unmatched + .too_deep' "$T/f.json")" 0 "unmatched or too deep"
# -p PID LIB:SYM finds LIB by its name in that process's maps: "libc" is
# libc.so.6, not libcrypto.so.3 mapped before it in a python3 that imported
# ssl; and when the process exits func stops by itself, saying so.
cat > "$T/py.py" <<'PY'
import ssl, os, sys, time
while not os.path.exists(sys.argv[1]): time.sleep(0.01)
for i in range(1000): os.getpid()
time.sleep(0.3)
PY
/usr/bin/python3 "$T/py.py" "$T/go2" & PY=$!
defer "kill $PY 2>/dev/null"
for i in $(seq 100); do grep -q libcrypto /proc/$PY/maps && break; sleep 0.05; done
grep -q libcrypto /proc/$PY/maps || die "python3 did not map libcrypto"
start_iodig "$T/g.json" func -p "$PY" libc:getpid --json
touch "$T/go2"
wait $PY || die "the python3 calling getpid failed"
for i in $(seq 40); do kill -0 "$IODIG_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$IODIG_PID" 2>/dev/null && die "func -p still running 4 s after its process exited"
wait "$IODIG_PID" || die "func exited non-zero after its process exited"
PIDS=("${PIDS[@]/$IODIG_PID}")
assert_eq "$(jq -s '[.[] | select(.type == "hist" and .function == "libc:getpid")][0].count' "$T/g.json")" 1000 "libc:getpid calls in python3 with libcrypto mapped"
grep -q "process $PY exited" "$T/g.json.err" || die "func did not say its process exited: $(cat "$T/g.json.err")"
ok "func -p stopped when process $PY exited, and said so"

# -U: one histogram per process and user stack at the call.  functest (built
# with frame pointers) calls leaf 20 times from main and once from outer, and
# recurse(4) 5 times: each depth of the recursion is its own stack, and its
# latency is known (the top level 4 x 5 ms, the deepest 5 ms).
"$B" "$T/go3" 20 10 5 4 & FT=$!
start_iodig "$T/u.json" func -U -p "$FT" "$B:leaf" "$B:recurse" --json
start_iodig "$T/u.txt" func -U -p "$FT" "$B:leaf"
touch "$T/go3"
wait $FT || die "functest failed"
for i in $(seq 40); do kill -0 "$IODIG_PID" 2>/dev/null || break; sleep 0.1; done
stop_all_iodig
series() {	# function: [count, [frames up to main]] per stack, sorted
	jq -s -c "[.[] | select(.type == \"hist\" and .function == \"$B:$1\" and .pid == \"$FT\")
		| [.count, ([.user[].sym | select(. != null)] | .[:index(\"main\") + 1])]] | sort" "$T/u.json"
}
assert_eq "$(series leaf)" '[[1,["leaf","outer","main"]],[20,["leaf","main"]]]' "-U leaf: 20 calls from main, 1 from outer, each its own histogram"
assert_eq "$(series recurse)" '[[5,["recurse","main"]],[5,["recurse","recurse","main"]],[5,["recurse","recurse","recurse","main"]],[5,["recurse","recurse","recurse","recurse","main"]]]' \
	"-U recurse: one histogram per depth, 5 calls each"
for d in 1 2 3 4; do
	p50=$(jq -s "[.[] | select(.type == \"hist\" and .function == \"$B:recurse\") | select([.user[].sym] | map(select(. == \"recurse\")) | length == $d)][0].p50_ns" "$T/u.json")
	# the helper records each top call's levels innermost first: depth d is
	# every 4th from 4 - d
	near "$p50" "$T/go3.times" recurse p50 "$(( (5 - d) * 5 ))" "-U recurse at depth $d" 4 $((4 - d))
done
assert_eq "$(jq -s '[.[] | select(.type == "hist") | .user_cut_short] | unique' "$T/u.json" | jq -c .)" '[false]' "stacks reach libc's start (frame pointers)"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .ustack_lost + .user_unresolved + .mmap_lost] | add' "$T/u.json")" 0 "user stacks lost or left as addresses"
line=$(grep -n '		CALL(0, leaf(ms));' "$TOP/tests/helpers/functest.c" | cut -d: -f1)
grep -q "^  user stack:" "$T/u.txt" && grep -q "main+0x[0-9a-f]* \[functest\] tests/helpers/functest.c:$line" "$T/u.txt" \
	|| die "func -U text: $(head -20 "$T/u.txt")"
ok "text: the stack under its labels, main's call of leaf at functest.c:$line"
"$IODIG" func -K -p 1 "$B:leaf" 2>"$T/e"; assert_eq "$?" 2 "-K on a user function: a usage error"
