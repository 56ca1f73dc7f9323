# lat -D -F: per disk and per op counts equal the /proc/diskstats deltas,
# two loop devices kept apart; the default view counts them together.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 128); B=$(loopdev 128); a=${A#/dev/}; b=${B#/dev/}

ra0=$(diskstat $a 1); wa0=$(diskstat $a 5); rb0=$(diskstat $b 1); wb0=$(diskstat $b 5)
start_iodig "$T/split.json" lat -D -F --json
start_iodig "$T/total.json" lat --json
pid_split=${PIDS[0]}
fio --name=r --filename=$A --direct=1 --rw=randread --bs=4k --size=64M --number_ios=3000 \
    --ioengine=psync >/dev/null || die "fio A"
fio --name=w --filename=$B --direct=1 --rw=randwrite --bs=8k --size=64M --number_ios=2000 \
    --ioengine=libaio --iodepth=8 >/dev/null || die "fio B"
fio --name=rw --filename=$B --direct=1 --rw=randrw --bs=4k --size=64M --number_ios=1000 \
    --ioengine=psync >/dev/null || die "fio B rw"
stop_iodig
IODIG_PID=$pid_split; stop_iodig
ra=$(( $(diskstat $a 1) - ra0 )); wa=$(( $(diskstat $a 5) - wa0 ))
rb=$(( $(diskstat $b 1) - rb0 )); wb=$(( $(diskstat $b 5) - wb0 ))
echo "  diskstats: $a reads $ra writes $wa; $b reads $rb writes $wb"
[ "$ra" -ge 3000 ] && [ "$wb" -ge 2000 ] || die "workload did not reach the devices"

# skipped (completions the kernel ran no BPF program for, bench/counts.sh)
# is one count over all disks: each op's count is exact, or short by at most
# that, and the shortfalls add up to it unless other disks skipped too
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/split.json")
short=0
for c in "$a read $ra" "$a write $wa" "$b read $rb" "$b write $wb"; do
	set -- $c
	got=$(jcount "$T/split.json" ".disk == \"$1\" and .op == \"$2\"")
	[ "$got" -le "$3" ] && [ $(( $3 - got )) -le $(( sk > 0 ? sk : 0 )) ] ||
		die "$1 $2: lat $got, diskstats $3, skipped $sk"
	short=$(( short + $3 - got ))
	ok "$1 ${2}s: $got, diskstats $3"
done
# skipped is measured: a few low at worst, even negative (assert_seen, lib.sh)
[ "$sk" -ge -8 ] && [ "$short" -le $(( sk > 0 ? sk : 0 )) ] || die "lat is short by $short, skipped says $sk"
ok "short by $short, skipped $sk"
# every histogram object carries its summary and the percentiles are ordered
jq -e -s '[.[] | select(.type == "hist")] | length > 0 and all(.[];
	.count > 0 and .min_ns <= .p50_ns and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns
	and .p99_ns <= .p999_ns and .p999_ns <= .max_ns and (.buckets | map(.[2]) | add) == .count)' \
	"$T/split.json" >/dev/null || die "histogram objects inconsistent"
ok "summaries consistent with buckets"
jq -e -s '[.[] | select(.type == "interval_end")] | length == 1 and .[0].last == true and .[0].unstamped == 0 and .[0].map_full == 0' \
	"$T/split.json" >/dev/null || die "interval_end record wrong: $(grep interval_end "$T/split.json")"
ok "nothing unstamped or lost"
# the all-disks view holds at least both loop devices' requests (other disks may add)
tot=$(jcount "$T/total.json" "true")
[ "$tot" -ge $((ra + wa + rb + wb)) ] || die "total $tot < loop requests $((ra + wa + rb + wb))"
ok "total $tot >= $((ra + wa + rb + wb))"
