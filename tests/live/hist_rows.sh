# The histograms' rows (hist.bpf.h's HIST_ROWS_PUT): a CPU's 4 rows take the
# first keys, the rest go to the hash behind them, and a request is counted
# once either way.  top beside 8 readers of 200 requests each on one disk
# (8 keys), lat --phases beside reads and writes of 3 disks (6 keys): each
# reader's row has its 200, and the phases' counts add up to the disks'
# /sys/block/DISK/stat, less the completions the kernel ran no program for.
# Less, too, a request whose slot another bio in flight took (Q writes its
# slot blindly: DESIGN.md, "one request-life engine"; dd's bios live on its
# kernel stack, one address a process): top counts it as unattributed, in
# pid 0's row, and lat --phases as untracked, not in the phases.  About 1
# request in 100,000 here (2026-12-03: 8 of 17 runs of this test's first
# part 30 times over), so the counts are held exact with it, not allowed a
# margin.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
# held_short GOT SKIPPED UNTRACKED WANT WHAT: the 3 disks' counts GOT +
# SKIPPED are their stat WANT, or short of it by no more than UNTRACKED
# (untracked is of every disk, the machine's own among them: the 3 disks'
# share of it is what their counts may fall short by, and no more)
held_short() {
	local short=$(($4 - $1 - $2))
	[ "$short" -ge 0 ] && [ "$short" -le "$3" ] ||
		die "$5 + $2 skipped: got $(($1 + $2)), want $4, short by no more than the $3 untracked"
	ok "$5 + $2 skipped + $short untracked (of $3) = their stat = $4"
}
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
ua=$(jq -s '[.[] | select(.type == "interval_end") | .unattributed] | add' "$T/top.json")
pid0=$(jq -s '[.[] | select(.type == "top" and .pid == 0) | .reads] | add // 0' "$T/top.json")
assert_eq "$pid0" "$ua" "top: pid 0's reads, as its unattributed"
sum=0
for i in 0 1 2 3 4 5 6 7; do
	r=$(jq -s "[.[] | select(.type == \"top\" and .pid == ${P[$i]}) | .reads] | add // 0" "$T/top.json")
	assert_seen "$r" "$((sk + ua))" 200 "top: reader $i (pid ${P[$i]}), its row's reads (+ $ua unattributed)"
	sum=$((sum + r))
done
assert_eq "$((sum + ua + sk))" 1600 "top: the readers' reads + $ua unattributed + $sk skipped = dd's"

# lat --phases: reads and writes of 3 disks
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/ph.json")
mf=$(jq -s '[.[] | select(.type == "interval_end") | .map_full] | add' "$T/ph.json")
assert_eq "$mf" 0 "lat --phases: values with no room (map_full)"
ut=$(jq -s '[.[] | select(.type == "interval_end") | .untracked] | add' "$T/ph.json")
got=$(jq -s "[.[] | select(.type == \"hist\" and .phase == \"Q2C\" and (.disk == \"$a\" or .disk == \"$b\" or .disk == \"$c\")) | .count] | add" "$T/ph.json")
held_short "$got" "$sk" "$ut" "$want" "lat --phases: Q2C counts of 3 disks' reads and writes"

# The spill lists: the values that found neither a row nor room in the map
# (a new key's value is allocated in the programs' context, where the
# kernel's allocator can be empty for a while: a CI run lost 52 of lat
# --phases' values on 6.18, another 90 of lat -D's on 5.10).
# IODIG_TEST_SPILL=1: the programs make no key and take no row.  A
# request's values are one entry (128 a CPU in an interval: five phases
# were five entries), the drain folds them in, and user space makes the
# spilled keys, empty, within 200 ms, so that what follows goes into the
# map: 20 requests on each disk, then 400 more on one, more than its spill
# lists hold on this machine's CPUs.  The counts are still the disks'.
# Only the dd's I/O, by their cgroup (-c): the spill lists are every
# disk's, and the machine's own disk, whose key no program makes either,
# filled one CPU's list with up to 122 of its requests in a burst (a debug
# dump of the lists' keys, 2026-12-03): the likely cause of this part's
# map_full once in 45 runs here and in a CI run, before the cgroup.
settle "$A"; settle "$B"; settle "$C"
io_cgroup
s0=$(( $(done_rw "$a") + $(done_rw "$b") + $(done_rw "$c") )); a0=$(done_rw "$a")
IODIG_TEST_SPILL=1 start_iodig "$T/sp.json" lat --phases --json -c "$CG"
IODIG_TEST_SPILL=1 start_iodig "$T/spd.json" lat -D --json -c "$CG"
P=()
for i in 0 1 2 3; do
	in_cgroup dd if="$A" of=/dev/null bs=4k count=5 skip=$((i * 5)) iflag=direct status=none & P+=($!)
done
for d in "$B" "$C"; do
	in_cgroup dd if=/dev/zero of="$d" bs=4k count=20 oflag=direct status=none & P+=($!)
done
wait "${P[@]}" || die "a dd failed"
sleep 0.6
in_cgroup dd if="$A" of=/dev/null bs=4k count=400 skip=1000 iflag=direct status=none || die "dd failed"
settle "$A"; settle "$B"; settle "$C"
stop_all_iodig
want=$(( $(done_rw "$a") + $(done_rw "$b") + $(done_rw "$c") - s0 ))
[ $(( $(done_rw "$a") - a0 )) -gt $(( 128 * $(nproc) )) ] || die "fewer requests on $a than its spill lists hold"
for f in sp spd; do
	assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .map_full] | add' "$T/$f.json")" 0 "$f: no key made by the programs: values with no room (map_full)"
done
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/sp.json")
ut=$(jq -s '[.[] | select(.type == "interval_end") | .untracked] | add' "$T/sp.json")
got=$(jq -s "[.[] | select(.type == \"hist\" and .phase == \"Q2C\" and (.disk == \"$a\" or .disk == \"$b\" or .disk == \"$c\")) | .count] | add" "$T/sp.json")
held_short "$got" "$sk" "$ut" "$want" "lat --phases, no key made by the programs: Q2C counts of 3 disks'"
for x in Q2G G2I I2D D2C; do
	assert_eq "$(jq -s "[.[] | select(.type == \"hist\" and .phase == \"$x\" and (.disk == \"$a\" or .disk == \"$b\" or .disk == \"$c\")) | .count] | add" "$T/sp.json")" "$got" \
		"lat --phases, no key made by the programs: $x counts, as Q2C's"
done
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/spd.json")
got=$(jq -s "[.[] | select(.type == \"hist\" and (.disk == \"$a\" or .disk == \"$b\" or .disk == \"$c\")) | .count] | add" "$T/spd.json")
assert_eq "$((got + sk))" "$want" "lat -D, no key made by the programs: counts of 3 disks' + $sk skipped = their stat"
