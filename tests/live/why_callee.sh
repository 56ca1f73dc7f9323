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
# time runnable (another task on the CPU: a busy machine) or stolen (the
# host took the vCPU: a spin past its end, or a sleep's wakeup, ends late
# by as much) moves a share by at most itself: it is the slack added to
# each bound, and only it
bad=$(jq -s -c '[.[] | select(.type == "call") | . as $c | ($c.children | map({(.function): .}) | add) as $k
	| (($c.parts.runnable_ns + $c.parts.steal_ns) / $c.wall_ns) as $rq
	| select(($k.a.ns / $c.wall_ns - 0.3 | fabs) > 0.05 + $rq or ($k.b.ns / $c.wall_ns - 0.7 | fabs) > 0.05 + $rq
		or $c.self_ns > $c.wall_ns * 0.02 + $c.parts.runnable_ns + $c.parts.steal_ns or $k.a.calls != 1 or $k.b.calls != 1
		or ($c.parts.on_cpu_ns / $c.wall_ns - 0.3 | fabs) > 0.08 + $rq or ($c.parts.sleep_ns / $c.wall_ns - 0.7 | fabs) > 0.08 + $rq
		or (($c.parts | add) != $c.wall_ns))] | map({wall: .wall_ns, parts, children: [.children[] | {function, ns, calls}], self: .self_ns})' "$T/o.json")
[ "$bad" = "[]" ] || die "calls not a 30% / b 70% (+-5), self under 2%, cpu 30% / sleep 70% (+-8), each plus the share runnable or stolen, parts adding up: $bad"
ok "20 calls: a 30% / b 70% (+-5), self under 2%, cpu 30% / sleep 70% (+-8), each plus the share runnable or stolen, parts adding up"
jq -e -s '[.[] | select(.type == "summary")][0].syscalls[0] | (.parts.runq.share + .parts.steal.share) as $rq | .function == "outer" and .calls == 20
	and (.children | map({(.function): .share}) | add | (.a - 0.3 | fabs) < 0.03 + $rq and (.b - 0.7 | fabs) < 0.03 + $rq and ."(self)" < 0.02 + $rq)' "$T/o.json" >/dev/null \
	|| die "summary: $(grep summary "$T/o.json")"
ok "summary over 20 calls: a 30%, b 70%, self under 2%"

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
