# slow decides in the kernel from struct request alone and looks closer only
# at requests that may be slow (life.bpf.c, "watched").  It must miss none,
# on a load that mixes fast requests with ones that wait before G (scheduler
# switches freeze the queue) and ones slow in the device (a FUSE device that
# sleeps 2 ms on every read), on two disks at once: against bpftrace's
# bracketing clock (lib.sh, bracket_check; slow_complete.sh says why it is
# exact), every request bpftrace times at 1 ms or more has its record.
# (It compared slow with snoop until 2026-12-03: iodig with iodig.)
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftrace >/dev/null || skip "needs bpftrace"
L=$(loopdev 128); n=${L#/dev/}
S=$(slowdev 2 64) || exit
s=${S#/dev/}

start_iodig "$T/slow0.json" slow 0 --json	# no threshold: followed here (below)
SLOW0=$IODIG_PID
bracket_first
start_iodig "$T/slow.json" slow 1 --json
SLOW=$IODIG_PID
# and one whose watched requests lose their slot right after the issue, as
# to a later bio of the same hash (a clean-clone CI run lost five 4.5 ms
# stalls so): Q and the submitter must come from the watch list
IODIG_TEST_SLOT_TAKEN=1 start_iodig "$T/taken.json" slow 1 --json
TAKEN=$IODIG_PID
bracket_clock 1000000 "$L" "$S"
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
bracket_stop
IODIG_PID=$SLOW; stop_iodig
IODIG_PID=$SLOW0; stop_iodig
IODIG_PID=$TAKEN; stop_iodig

# slots taken after the issue: nothing missed, each watched one kept
bracket_check "$T/taken.json" 1000000
kept=$(jq -s '[.[] | select(.type == "summary")][0].watch_kept' "$T/taken.json")
taken_stalls=$(jq -s "[.[] | select(.type == \"request\" and .disk == \"$n\" and .dominant == \"Q2G\")] | length" "$T/taken.json")
[ "$taken_stalls" -ge 1 ] && [ "$kept" -ge "$taken_stalls" ] ||
	die "slots taken after the issue: $kept kept from the watch list, for $taken_stalls Q2G stalls on $n"
jq -e -s "all(.[] | select(.type == \"request\" and .disk == \"$n\" and .dominant == \"Q2G\"); .partial == false and .comm == \"fio\")" "$T/taken.json" >/dev/null ||
	die "slots taken after the issue: a Q2G stall on $n partial or not fio's"
ok "slots taken after the issue: $kept requests' Q and submitter kept by the watch list, $taken_stalls Q2G stalls on $n, each fio's"

jq -e -s '[.[] | select(.type == "summary")][0] | .lost == 0 and .tracking == "watched"' "$T/slow.json" \
	>/dev/null || die "slow summary: $(grep summary "$T/slow.json")"
bracket_check "$T/slow.json" 1000000
# with no threshold nothing goes by, so watching would put every request on
# the watch list and off it again: followed, unless the kernel stamps bios
# at Q (6.1, 6.12: tests/vm/check.sh's slow 0 is watched on its stamps)
want=followed
[ "$(jq -r -s '[.[] | select(.type == "summary")][0].q_stamp' "$T/slow0.json")" = kernel ] && want=watched
assert_eq "$(jq -r -s '[.[] | select(.type == "summary")][0] | "\(.tracking) \(.lost)"' "$T/slow0.json")" "$want 0" \
	"slow 0: requests $want (no threshold), none lost"
# both kinds of slow, each on its disk
slow_s=$(jq --arg d "$s" '[.[] | select(.[0] == $d and .[4] >= 1000000)] | length' "$BR_IO")
[ "$slow_s" -ge 100 ] || die "the slow device gave too few slow requests: $slow_s"
ok "$slow_s records of the slow device's reads"
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
