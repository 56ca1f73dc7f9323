# A deliberately tiny ring buffer under load: records are lost, counted, and
# delivered + lost = the requests the kernel completed.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
# every op diskstats counts: reads, writes, discards, flushes
ios() { echo $(( $(diskstat $n 1) + $(diskstat $n 5) + $(diskstat $n 12) + $(diskstat $n 16) )); }
i0=$(ios)
start_iodig "$T/s.json" snoop -d "$n" --json --buffer-size 4096
fio --name=r --filename="$L" --direct=1 --rw=randread --bs=4k --size=64M --time_based --runtime=2 \
    --ioengine=libaio --iodepth=32 --numjobs=2 >/dev/null || die fio
stop_iodig
i=$(( $(ios) - i0 ))
got=$(jq -s '[.[] | select(.type == "request")] | length' "$T/s.json")
lost=$(jq -s '[.[] | select(.type == "summary")][0].lost' "$T/s.json")
echo "  $i completions: $got delivered, $lost lost; summary: $(grep "\"type\":\"summary\"" "$T/s.json")"
[ "$lost" -gt 0 ] || die "a 4 KiB ring buffer lost nothing under $i requests"
assert_eq "$((got + lost))" "$(jq -s '[.[] | select(.type == "summary")][0].completed' "$T/s.json")" "delivered + lost = completions the program saw"
# under this overload the kernel may skip a nested run of a program (its
# recursion guard), or end a request without block_rq_complete: iodig reports
# them (missed, unseen_end, in_flight).  A request ended unseen whose slot
# another bio then took leaves only that takeover (untracked) as its trace.
other=$(jq -s '[.[] | select(.type == "summary")][0] | .missed + .unseen_end + .in_flight + .untracked' "$T/s.json")
[ $((got + lost)) -le "$i" ] && [ "$i" -le $((got + lost + other)) ] ||
	die "diskstats $i outside [delivered + lost, + $other reported unseen] = [$((got + lost)), $((got + lost + other))]"
ok "diskstats $i = delivered + lost (+ $((i - got - lost)) of $other reported as missed, unseen or in flight)"
"$IODIG" snoop --buffer-size 5000 >/dev/null 2>&1; assert_eq $? 2 "a buffer size that is no power of 2"
