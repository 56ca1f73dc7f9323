# Requests already in flight when tracing starts are reported with the
# stamps that were seen and marked partial, never given made-up phases.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(slowdev 20 64) || exit
# 20 ms a read, 8 in flight: tracing starts with requests mid-flight
fio --name=r --filename="$L" --readonly --direct=1 --rw=randread --bs=4k --size=64M --time_based \
    --runtime=2 --ioengine=libaio --iodepth=8 >/dev/null &
FIO=$!
sleep 0.5
start_iodig "$T/s.json" snoop -d "${L#/dev/}" --json
wait $FIO || die fio
stop_iodig
partial=$(jq -s '[.[] | select(.type == "request" and (.seen | startswith("-")))] | length' "$T/s.json")
[ "$partial" -ge 1 ] || die "no partial record though requests were in flight at start"
ok "$partial partial records"
jq -e -s 'all(.[] | select(.type == "request" and (.seen | startswith("-"))); .partial and .dominant == null)' \
	"$T/s.json" >/dev/null || die "a partial record claims a Q stamp or a dominant phase"
ok "partial records lack Q and name no dominant phase"
assert_eq "$(jq -s '[.[] | select(.type == "summary")][0].partial' "$T/s.json")" \
	"$(jq -s '[.[] | select(.type == "request" and .partial)] | length' "$T/s.json")" "partial counter = partial records"
jq -e -s 'all(.[] | select(.type == "request" and (.partial | not)); .q2g_ns + .g2i_ns + .i2d_ns + .d2c_ns == .q2c_ns and .d2c_ns >= 15000000)' \
	"$T/s.json" >/dev/null || die "a complete record with phases that do not add up, or D2C under the device's 20 ms"
ok "complete records add up, and D2C holds the device's 20 ms"
