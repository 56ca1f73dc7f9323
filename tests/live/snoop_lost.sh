# A deliberately tiny ring buffer under load: records are lost, counted, and
# delivered + lost = the requests the kernel completed (diskstats), less only
# those the kernel ran no program for (skipped, measured by a perf counter).
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
# the rest are the completions the kernel ran no program for, counted from
# outside BPF (skipped: a counting perf event on block_rq_complete, less
# the programs' own count), at most 1 in 1000 (a CI run beside a competing
# fio on another disk: 189 of 363550, 1 in 1923)
sk=$(jq -s '[.[] | select(.type == "summary")][0].skipped' "$T/s.json")
assert_seen "$((got + lost))" "$sk" "$i" "diskstats: delivered + lost (+ skipped, measured)"
[ "$sk" -le $((i / 1000)) ] || die "skipped $sk of $i: more than 1 in 1000"
"$IODIG" snoop --buffer-size 5000 >/dev/null 2>&1; assert_eq $? 2 "a buffer size that is no power of 2"
