# slow decides in the kernel from struct request alone and looks closer only
# at requests that may be slow (life.bpf.c, "watched").  It must miss none:
# snoop, which follows every request, runs beside it on the same load, and
# slow's records over a threshold are bounded by snoop's just above and just
# below it (the two stamp Q and C in separate program runs, microseconds apart),
# plus snoop's own partial records.
# The load mixes fast requests with ones that wait before G (scheduler
# switches freeze the queue) and ones slow in the device (a FUSE device
# that sleeps 2 ms on every read).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
S=$(slowdev 2 64) || exit
s=${S#/dev/}

start_iodig "$T/snoop.json" snoop --json
SNOOP=$IODIG_PID
start_iodig "$T/slow.json" slow 1 --json
SLOW=$IODIG_PID
start_iodig "$T/slow0.json" slow 0 --json	# no threshold: followed here (below)
SLOW0=$IODIG_PID
fio --name=w --filename="$L" --direct=1 --rw=randrw --bs=4k --size=64M --time_based \
    --runtime=3 --ioengine=libaio --iodepth=32 --rate_iops=10000,10000 >/dev/null &
F1=$!
fio --name=r --filename="$S" --direct=1 --rw=randread --bs=4k --size=32M --time_based \
    --runtime=3 --ioengine=libaio --iodepth=2 >/dev/null &
F2=$!
sleep 0.5
for i in 1 2 3 4; do
	echo mq-deadline > /sys/block/$n/queue/scheduler; sleep 0.2
	echo none > /sys/block/$n/queue/scheduler; sleep 0.2
done
wait $F1 || die fio
wait $F2 || die fio
IODIG_PID=$SLOW; stop_iodig
IODIG_PID=$SLOW0; stop_iodig
IODIG_PID=$SNOOP; stop_iodig

jq -e -s '[.[] | select(.type == "summary")][0] | .lost == 0 and .tracking == "watched"' "$T/slow.json" \
	>/dev/null || die "slow summary: $(grep summary "$T/slow.json")"
jq -e -s '[.[] | select(.type == "summary")][0] | .lost == 0' "$T/snoop.json" >/dev/null ||
	die "snoop lost records: $(grep summary "$T/snoop.json")"
# with no threshold nothing goes by, so watching would put every request on
# the watch list and off it again: followed, unless the kernel stamps bios
# at Q (6.1, 6.12: tests/vm/check.sh's slow 0 is watched on its stamps)
want=followed
[ "$(jq -r -s '[.[] | select(.type == "summary")][0].q_stamp' "$T/slow0.json")" = kernel ] && want=watched
assert_eq "$(jq -r -s '[.[] | select(.type == "summary")][0] | "\(.tracking) \(.lost)"' "$T/slow0.json")" "$want 0" \
	"slow 0: requests $want (no threshold), none lost"
# every request is in snoop's output: keep those near or over the threshold
jq -c 'select(.type != "request" or .q2c_ns >= 900000)' "$T/snoop.json" > "$T/snoop.slow.json"
mv "$T/snoop.slow.json" "$T/snoop.json"
over() {	# FILE MS DISK: requests on DISK with Q2C >= MS, Q seen
	jq -s "[.[] | select(.type == \"request\" and .disk == \"$3\" and (.seen | startswith(\"Q\"))
	        and .q2c_ns >= $2 * 1000000)] | length" "$1"
}
partial=$(jq -s '[.[] | select(.type == "summary")][0].partial' "$T/snoop.json")
seen() {	# FILE DISK: requests over 1 ms by stamps seen
	jq -c -s "[.[] | select(.type == \"request\" and .disk == \"$2\" and .q2c_ns >= 1000000)]
	          | group_by(.seen) | map({(.[0].seen): length}) | add" "$1"
}
for d in "$n" "$s"; do
	got=$(over "$T/slow.json" 1.05 "$d")
	# snoop's partial records (its own slot taken, Q unseen) may be any of them
	lo=$(over "$T/snoop.json" 1.1 "$d"); hi=$(( $(over "$T/snoop.json" 1.0 "$d") + partial ))
	[ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ] ||
		die "$d: slow has $got requests over 1.05 ms, snoop $lo over 1.1 ms and $hi over 1.0 ms;" \
		    "by stamps seen, slow: $(seen "$T/slow.json" "$d"), snoop: $(seen "$T/snoop.json" "$d")," \
		    "summaries: $(grep -h summary "$T/slow.json" "$T/snoop.json")"
	ok "$d: slow's $got requests over 1.05 ms lie between snoop's $lo (over 1.1) and $hi (over 1.0, or partial)"
done
[ "$(over "$T/slow.json" 1.05 "$s")" -ge 100 ] || die "the slow device gave too few slow requests"
stalls=$(jq -s "[.[] | select(.type == \"request\" and .disk == \"$n\" and .dominant == \"Q2G\")] | length" "$T/slow.json")
[ "$stalls" -ge 1 ] || die "no Q2G stall on $n"
ok "$stalls Q2G stalls on $n among them"
jq -e -s 'all(.[] | select(.type == "request"); .q2c_ns >= 1000000)' "$T/slow.json" >/dev/null ||
	die "a record under the 1 ms threshold"
# on the test's two disks (slow runs machine-wide: the root disk's journal
# writes can be slow too; seen in a clean-clone CI run)
jq -e -s "all(.[] | select(.type == \"request\" and .partial == false and (.disk == \"$n\" or .disk == \"$s\")); .comm == \"fio\")" "$T/slow.json" >/dev/null ||
	die "a complete record on $n or $s whose submitter is not fio: $(jq -c "select(.type == \"request\" and .partial == false and .comm != \"fio\" and (.disk == \"$n\" or .disk == \"$s\"))" "$T/slow.json" | head -3)"
ok "every record is over 1 ms and names fio"
