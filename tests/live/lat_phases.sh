# lat --phases: every request of a known workload in every phase, the phases
# adding up to Q2C (sums exactly), and a frozen queue seen in Q2G only.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
i0=$(( $(diskstat $n 1) + $(diskstat $n 5) ))
start_iodig "$T/p.json" lat --phases -d "$n" --json
fio --name=w --filename="$L" --direct=1 --rw=randrw --bs=4k --size=64M --time_based --runtime=2 \
    --ioengine=libaio --iodepth=4 >/dev/null &
FIO=$!
sleep 0.7
echo mq-deadline > /sys/block/$n/queue/scheduler; sleep 0.3; echo none > /sys/block/$n/queue/scheduler
wait $FIO || die fio
stop_iodig
i=$(( $(diskstat $n 1) + $(diskstat $n 5) - i0 ))
echo "  $(grep interval_end "$T/p.json")"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .partial] | add' "$T/p.json")" 0 "partial requests"
# While it switches elevators, this kernel (6.18) runs no BPF program for a
# few block_rq_complete hits (ftrace sees them; bpftrace's count is short by
# as many): iodig counts them from /sys/block (skipped) and, for requests it
# followed, sees their bios come back (unseen_end) or still holds them
# (in_flight).  phases + skipped = diskstats, exactly.
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/p.json")
fl=$(jq -s '[.[] | select(.type == "interval_end")] | (.[-1].in_flight + (map(.unseen_end) | add))' "$T/p.json")
for p in Q2G G2I I2D D2C Q2C; do
	c=$(jq -s "[.[] | select(.type == \"hist\" and .phase == \"$p\" and .disk == \"$n\") | .count] | add" "$T/p.json")
	assert_eq "$((c + sk))" "$i" "$p count $c + $sk skipped = diskstats completions"
done
[ "$fl" -le "$sk" ] || die "$fl requests unseen or in flight, but only $sk skipped"
ok "$fl unseen or in flight, all among the $sk skipped"
sum() { jq -s "[.[] | select(.type == \"hist\" and .phase == \"$1\") | .sum_ns] | add" "$T/p.json"; }
assert_eq "$(( $(sum Q2G) + $(sum G2I) + $(sum I2D) + $(sum D2C) ))" "$(sum Q2C)" "sum of phases = sum of Q2C (ns)"
q2g=$(jq -s '[.[] | select(.type == "hist" and .phase == "Q2G") | .max_ns] | max' "$T/p.json")
d2c=$(jq -s '[.[] | select(.type == "hist" and .phase == "D2C") | .p99_ns] | max' "$T/p.json")
[ "$q2g" -ge 2000000 ] || die "Q2G max $q2g ns: the scheduler switches froze nothing?"
[ "$d2c" -lt 2000000 ] || die "D2C p99 $d2c ns: the device itself was slow"
ok "frozen queue in Q2G (max $((q2g / 1000)) us), device fast (D2C p99 $((d2c / 1000)) us)"
jq -e -s '[.[] | select(.type == "hist" and .phase == "I2D") | .count] | add > 0' "$T/p.json" >/dev/null || die "no I2D"
