# iodig throttle against the kernel's own record of the same decisions: a
# writer made to hit dirty throttling (its device's bdi with strict_limit
# and a 1 MiB max_bytes) while a tracefs instance of its own records every
# writeback:balance_dirty_pages event of that device.  Calls, pauses and
# the time paused equal the trace's; the gauges equal its last event's; the
# time paused fits inside the writer's own clock of its write() calls.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
throttled_fs 48 150
start_iodig "$T/t.json" throttle --json -d "$a"
J1=$IODIG_PID; O1=$IODIG_OUT
start_iodig "$T/t.txt" throttle -p "$P"
J2=$IODIG_PID
start_iodig "$T/n.txt" throttle -p "$$"
echo 1 > "$E/enable" || die "tracefs enable"
touch "$T/go"
wait $J || die "the writer failed"
echo 0 > "$E/enable"
stop_iodig
IODIG_PID=$J2; stop_iodig
IODIG_PID=$J1; IODIG_OUT=$O1; stop_iodig
cat "$I/trace" > "$T/trace"
grep -q LOST "$T/trace" && die "tracefs lost events: $(grep LOST "$T/trace" | head -2)"
# the kernel's record: calls, pauses, ms paused, and the last call's gauges
awk -v p="-$P" 'index($1, p) == length($1) - length(p) + 1 && /balance_dirty_pages:/ {
	n++; for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["pause"] > 0) { k++; s += v["pause"] }
	last = v["dirty"] " " v["limit"] " " (v["wb_dirty"] != "" ? v["wb_dirty"] : v["bdi_dirty"]) " " \
	       (v["wb_setpoint"] != "" ? v["wb_setpoint"] : v["bdi_setpoint"]) }
	END { print n + 0, k + 0, s + 0, last }' "$T/trace" > "$T/want"
read -r n k s g1 g2 g3 g4 < "$T/want"
spent=$(tail -1 "$T/d.out")
[ "$k" -ge 5 ] || die "the writer was hardly throttled ($k pauses in $n calls in the trace, $((spent / 1000000)) ms in write()): the test proves nothing"
jq -s -r --argjson p "$P" '[.[] | select(.type == "throttle" and .pid == $p)] | [(map(.calls) | add), (map(.pauses) | add),
	(map(.paused_ms) | add), (last | .dirty_pages, .limit_pages, .wb_dirty_pages, .wb_setpoint_pages)] | map(tostring) | join(" ")' \
	"$T/t.json" > "$T/got"
assert_eq "$(cat "$T/got")" "$n $k $s $g1 $g2 $g3 $g4" "calls, pauses, ms paused, then dirty, limit, the device's dirty and setpoint, against tracefs"
assert_eq "$(jq -s '[.[] | select(.type == "throttle" and .pid != '"$P"')] | length' "$T/t.json")" 0 "-d: no other writer"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end")][-1].map_full' "$T/t.json")" 0 "no key lost"
[ $((s * 1000000)) -le $((spent + 5000000)) ] || die "paused $s ms, more than the writer spent in write(): $spent ns"
ok "paused $s ms of the $((spent / 1000000)) ms the writer spent in write()"
# text: its row, the same counts
grep -Eq "^ *$P python3 +$a +$n +$k +$s " "$T/t.txt" || die "text: $(cat "$T/t.txt")"
ok "text: $(grep -E "^ *$P " "$T/t.txt")"
grep -q '^no task dirtied pages past its ratelimit$' "$T/n.txt" || die "-p another pid: $(cat "$T/n.txt")"
ok "-p another process: no row, said so"
