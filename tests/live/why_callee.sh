# iodig why --call TARGET --into CHILD,...: for each slow TARGET call, the
# time inside each child and the rest as self time, beside the parts.
# outer() spins 3 ms in a() and sleeps 7 ms in b(): a 30%, b 70%, self ~0,
# cpu ~ a, sleep ~ b.  rec() recurses 6 deep before calling outer(): one
# record per outermost call, and outer, a and b inside it counted once each.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
B="$TOP/build/helpers/callee"
[ -x "$B" ] || die "$B not built (make)"

run() {	# NAME ARGS...: callee waiting for $T/go.NAME; pid in $P
	"$B" "$T/go.$1" "${@:2}" > "$T/pid.$1" &
	J=$!
	for i in $(seq 50); do [ -s "$T/pid.$1" ] && break; sleep 0.05; done
	P=$(cat "$T/pid.$1")
}

run o 20 3 7
start_iodig "$T/o.json" why 5 -p "$P" --call "$B:outer" --into a,b --json
touch "$T/go.o"; wait $J || die "the helper failed"
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "call" and .function == "outer")] | length' "$T/o.json")" 20 "outer() calls recorded"
# each call against the helper's own clocks (its GO_FILE.clock: a line per
# call, in order): a's and b's time within 2% or 250 us of the helper's
# (less, at most, outer()'s self time: below)
# (its clock reads sit inside outer(), the probes' traps outside them; on
# this host a's was 111 us off once in CI, and the CPU part 115 us off its
# thread clock in 2 runs of 13: DESIGN.md, the scheduler's clock), the
# CPU part (less steal) within 2% or 250 us of its thread clock, self under
# 2% plus the time runnable or stolen, the parts adding up to the wall; so a
# late wakeup (b's 7 ms sleep once took 9.35 in CI) is the helper's too.
# And the summary's shares: the helper's over the 20 calls, within 0.02.
python3 - "$T/o.json" "$T/go.o.clock" <<'PY' || die "outer() calls against the helper's own clocks"
import json, sys
recs = sorted((r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "call"), key=lambda r: r["ts_ns"])
summ = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "summary"]
clk = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
bad = []
tol = lambda want: max(0.02 * want, 250000)
near = lambda got, want: abs(got - want) <= tol(want)
# a child's time by its probes lies inside the helper's clocks around its
# call; what the helper's window holds beyond them is outer()'s own time
# (a host's steal or a wait for the CPU between a clock read and a probe:
# a CI run had a() 272 us short with 528 us stolen in the call), which
# iodig counts as self, itself held below (2% + runnable + steal)
inside = lambda got, want, self_ns: want - self_ns - tol(want) <= got <= want + tol(want)
if len(recs) != len(clk):
    sys.exit("FAIL: %d records, %d calls on the helper's clock" % (len(recs), len(clk)))
ta = tb = 0
for r, (t0, t1, t2, cpu) in zip(recs, clk):
    k = {c["function"]: c for c in r["children"]}
    p = r["parts"]
    ta += t1 - t0
    tb += t2 - t1
    if not (r["ts_ns"] <= t0 and t2 <= r["ts_ns"] + r["wall_ns"]) or k["a"]["calls"] != 1 or k["b"]["calls"] != 1 \
       or not inside(k["a"]["ns"], t1 - t0, r["self_ns"]) or not inside(k["b"]["ns"], t2 - t1, r["self_ns"]) \
       or not near(p["on_cpu_ns"], cpu) \
       or r["self_ns"] > 0.02 * r["wall_ns"] + p["runnable_ns"] + p["steal_ns"] or sum(p.values()) != r["wall_ns"]:
        bad.append("iodig %s; helper a %d b %d cpu %d" % (json.dumps({"ts": r["ts_ns"], "wall": r["wall_ns"], "parts": p,
                   "a": k["a"]["ns"], "b": k["b"]["ns"], "self": r["self_ns"]}), t1 - t0, t2 - t1, cpu))
sh = {c["function"]: c["share"] for c in summ[0]["syscalls"][0]["children"]} if summ else {}
if not sh or abs(sh["a"] - ta / (ta + tb)) > 0.02 or abs(sh["b"] - tb / (ta + tb)) > 0.02:
    bad.append("summary shares %s, the helper's a %.3f b %.3f" % (sh, ta / (ta + tb), tb / (ta + tb)))
for b in bad:
    print("FAIL:", b)
print("  (the helper's a %.1f ms, b %.1f ms over %d calls; iodig's shares %s)" % (ta / 1e6, tb / 1e6, len(clk), sh))
sys.exit(1 if bad else 0)
PY
ok "20 calls: a's and b's time and the CPU part within 2% of the helper's own clocks, self under 2%, parts adding up; the summary's shares the helper's"

run r 5 2 3 6
start_iodig "$T/r.json" why 1 -p "$P" --call "$B:rec" --into outer,a,b,rec --json
touch "$T/go.r"; wait $J || die "the helper failed"
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "call" and .function == "rec")] | length' "$T/r.json")" 5 "records for 5 outermost rec() calls (6 deep each)"
bad=$(jq -s '[.[] | select(.type == "call") | (.children | map({(.function): .}) | add) as $k
	| select($k.outer.calls != 1 or $k.a.calls != 1 or $k.rec.calls != 5 or $k.rec.ns < $k.outer.ns
		 or ($k.outer.ns - $k.a.ns - $k.b.ns) < 0 or .self_ns > .wall_ns * 0.02 + .parts.runnable_ns)] | length' "$T/r.json")
[ "$bad" = 0 ] || die "recursive calls where a child is miscounted: $(jq -c 'select(.type == "call") | [.wall_ns, .self_ns, .children]' "$T/r.json")"
ok "recursive calls: rec inside itself 5 times, once outermost; a, b, outer once each"

# errors: one line each, exit 2 or 1
"$IODIG" why --into a >/dev/null 2>"$T/e1"; assert_eq "$?" 2 "--into without --call: exit"
"$IODIG" why --call "$B:nosuchfn_iodig" 2>"$T/e2"; assert_eq "$?" 1 "--call on a missing symbol: exit"
grep -q "nosuchfn_iodig" "$T/e2" || die "the missing symbol is not named: $(cat "$T/e2")"
assert_eq "$(wc -l < "$T/e2")" 1 "lines on stderr for a missing symbol"
