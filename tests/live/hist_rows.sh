# The histograms' rows (hist.bpf.h's HIST_ROWS_PUT): a CPU's 4 rows take the
# first keys, the rest go to the hash behind them, and a request is counted
# once either way.  top beside 8 readers of 200 requests each on one disk
# (8 keys), lat --phases beside reads and writes of 3 disks (6 keys): each
# reader's row has its 200, and the phases' counts add up to the disks'
# /sys/block/DISK/stat, less the completions the kernel ran no program for.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 32); B=$(loopdev 32); C=$(loopdev 32)
a=${A#/dev/}; b=${B#/dev/}; c=${C#/dev/}
done_rw() { awk '{print $1 + $5}' "/sys/block/$1/stat"; }	# reads and writes completed
s0=$(( $(done_rw "$a") + $(done_rw "$b") + $(done_rw "$c") ))
start_iodig "$T/top.json" top --json -n 0 -d "$a" 1
start_iodig "$T/ph.json" lat --phases --json
P=()
for i in 0 1 2 3 4 5 6 7; do
	dd if="$A" of=/dev/null bs=4k count=200 skip=$((i * 200)) iflag=direct status=none & P+=($!)
done
for d in "$B" "$C"; do
	dd if=/dev/zero of="$d" bs=4k count=150 oflag=direct status=none & P+=($!)
	dd if="$d" of=/dev/null bs=4k count=150 skip=4000 iflag=direct status=none & P+=($!)
done
wait "${P[@]}" || die "a dd failed"
settle "$A"; settle "$B"; settle "$C"
stop_all_iodig
want=$(( $(done_rw "$a") + $(done_rw "$b") + $(done_rw "$c") - s0 ))

# top: each reader its own key, 8 on one disk and CPU set
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/top.json")
mf=$(jq -s '[.[] | select(.type == "interval_end") | .map_full] | add' "$T/top.json")
assert_eq "$mf" 0 "top: values with no room (map_full)"
for i in 0 1 2 3 4 5 6 7; do
	assert_seen "$(jq -s "[.[] | select(.type == \"top\" and .pid == ${P[$i]}) | .reads] | add // 0" "$T/top.json")" \
		"$sk" 200 "top: reader $i (pid ${P[$i]}), its row's reads"
done

# lat --phases: reads and writes of 3 disks
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/ph.json")
mf=$(jq -s '[.[] | select(.type == "interval_end") | .map_full] | add' "$T/ph.json")
assert_eq "$mf" 0 "lat --phases: values with no room (map_full)"
got=$(jq -s "[.[] | select(.type == \"hist\" and .phase == \"Q2C\" and (.disk == \"$a\" or .disk == \"$b\" or .disk == \"$c\")) | .count] | add" "$T/ph.json")
assert_eq "$((got + sk))" "$want" "lat --phases: Q2C counts of 3 disks' reads and writes + $sk skipped = their stat"
