# A bio-based disk on the host: zram (built in here; dm, md and bcache need
# modules, so tests/vm/stack has them).  It allocates no request: lat times
# its bios from submission to their end, and its counts are the kernel's
# (/proc/diskstats), beside a loop device's requests in the same run; each
# bio lies inside the read or write call that made it (the helper's clock).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
[ -w /sys/class/zram-control/hot_add ] || skip "no zram in this kernel (/sys/class/zram-control)"
Z=$(cat /sys/class/zram-control/hot_add) || die "zram hot_add"
defer "echo $Z > /sys/class/zram-control/hot_remove"
defer "echo 1 > /sys/block/zram$Z/reset"
echo 64M > /sys/block/zram$Z/disksize || die "zram$Z disksize"
z=zram$Z
for i in $(seq 50); do [ -b /dev/$z ] && break; sleep 0.1; done
L=$(loopdev 64); l=${L#/dev/}
# each call timed by the helper around the system call: O_DIRECT, one bio each
calls() {	# dev op n -> total ns of the n calls
	python3 - "$@" <<'PY'
import os, sys, time, mmap
dev, op, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(dev, (os.O_RDONLY if op == "read" else os.O_WRONLY) | os.O_DIRECT)
buf = mmap.mmap(-1, 4096); total = 0
for i in range(n):
    t = time.monotonic_ns()
    (os.preadv if op == "read" else os.pwritev)(fd, [buf], i * 4096)
    total += time.monotonic_ns() - t
os.close(fd); print(total)
PY
}
start_iodig "$T/lat.json" lat -D -F --json
zr0=$(diskstat $z 1); zw0=$(diskstat $z 5); lr0=$(diskstat $l 1)
wt=$(calls /dev/$z write 200) || die "writes"
rt=$(calls /dev/$z read 300) || die "reads"
dd if="$L" of=/dev/null bs=4k count=150 iflag=direct status=none
sleep 0.3
zr=$(( $(diskstat $z 1) - zr0 )); zw=$(( $(diskstat $z 5) - zw0 )); lr=$(( $(diskstat $l 1) - lr0 ))
stop_iodig
count() { jq -s "[.[] | select(.type == \"hist\" and .disk == \"$1\" and .op == \"$2\") | .count] | add // 0" "$T/lat.json"; }
sum() { jq -s "[.[] | select(.type == \"hist\" and .disk == \"$1\" and .op == \"$2\") | .sum_ns] | add // 0" "$T/lat.json"; }
assert_eq "$zr" 300 "diskstats: the helper's 300 reads of $z"
assert_eq "$(count $z read)" "$zr" "lat -D: $z's reads = /proc/diskstats'"
assert_eq "$(count $z write)" "$zw" "lat -D: $z's writes = /proc/diskstats' ($zw)"
# the loop device's requests beside it, on their own clock (block_rq_complete's
# skipped is measured for request-based disks only)
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/lat.json")
assert_seen "$(count $l read)" "$sk" "$lr" "lat -D: $l's reads beside it"
assert_eq "$(jq -s -r "[.[] | select(.type == \"hist\") | \"\(.disk)=\(.clock)\"] | unique | map(select(startswith(\"$z=\") or startswith(\"$l=\"))) | join(\" \")" "$T/lat.json")" \
	"$l=issue-to-complete $z=submit-to-end" "each disk's clock: the bio-based one from submission to end"
# every bio inside its call: the bios' time at most the calls' (the helper's clock)
s=$(sum $z read); [ "$s" -gt 0 ] && [ "$s" -le "$rt" ] || die "$z reads: bios' sum $s ns, the calls' $rt ns"
ok "$z reads: the bios' $s ns inside the calls' $rt ns (helper's clock)"
s=$(sum $z write); [ "$s" -gt 0 ] && [ "$s" -le "$wt" ] || die "$z writes: bios' sum $s ns, the calls' $wt ns"
ok "$z writes: the bios' $s ns inside the calls' $wt ns"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .bio_unstamped] | add' "$T/lat.json")" 0 "no bio without a start"
# -d on it: its bios alone
start_iodig "$T/d.json" lat -d $z --json
zr0=$(diskstat $z 1)
dd if=/dev/$z of=/dev/null bs=4k count=100 iflag=direct status=none
dd if="$L" of=/dev/null bs=4k count=50 iflag=direct status=none
sleep 0.3
zr=$(( $(diskstat $z 1) - zr0 ))
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "hist") | .count] | add' "$T/d.json")" "$zr" "lat -d $z: its 100 reads alone"
# snoop -d on it: a bio record for each bio, the kernel's count, in the
# schema; no disk below, so no lowers
start_iodig "$T/s.json" snoop -d $z --json
zr0=$(diskstat $z 1)
dd if=/dev/$z of=/dev/null bs=4k count=64 iflag=direct status=none
sleep 0.3
zr=$(( $(diskstat $z 1) - zr0 ))
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "bio" and .op == "read")] | length' "$T/s.json")" "$zr" "snoop -d $z: a bio record per read (diskstats)"
assert_eq "$(jq -s -c '[.[] | select(.type == "bio") | .lower_count] | unique' "$T/s.json")" "[0]" "no disk under zram: no lowers"
for s in bio stack_summary; do
	n=$(python3 tests/schema/check.py tests/schema/$s.json "$T/s.json" $s) || die "schema $s: $n"
	ok "schema $s: $n objects fit"
done
# layers: the disk in its own layer, its I/O the kernel's count
start_iodig "$T/l.json" layers --json 1
zr0=$(diskstat $z 1)
dd if=/dev/$z of=/dev/null bs=4k count=80 iflag=direct status=none
sleep 1.3
zr=$(( $(diskstat $z 1) - zr0 ))
stop_iodig
assert_eq "$(jq -s "[.[] | select(.disk == \"$z\") | .ios] | add" "$T/l.json")" "$zr" "layers: $z's I/O over the intervals = diskstats' 80 reads"
n=$(python3 tests/schema/check.py tests/schema/layer.json "$T/l.json" layer) || die "schema layer: $n"
ok "schema layer: $n objects fit"
# -p on a bio-based disk: that process's bios only (its pid known before it
# reads: a shell that waits for a file, then execs dd)
sh -c 'echo $$; while [ ! -e "$1" ]; do sleep 0.02; done; exec dd if="$2" of=/dev/null bs=4k count=40 iflag=direct status=none' \
	sh "$T/go" /dev/$z > "$T/pid" & DJ=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.05; done
P=$(cat "$T/pid")
start_iodig "$T/p.json" snoop -d $z -p "$P" --json
dd if=/dev/$z of=/dev/null bs=4k count=25 iflag=direct status=none	# another process's
touch "$T/go"; wait $DJ || die "dd"
sleep 0.3
stop_iodig
assert_eq "$(jq -s -c "[.[] | select(.type == \"bio\") | .pid] | group_by(.) | map([.[0], length])" "$T/p.json")" "[[$P,40]]" \
	"snoop -d $z -p $P: its 40 reads, not the other reader's 25"
# top on a bio-based disk: each process's bios in its row on that disk, the
# kernel's counts (two readers, the pids known: each row is its own)
start_iodig "$T/t.json" top -d $z --json 1
zr0=$(diskstat $z 1); zw0=$(diskstat $z 5)
dd if=/dev/$z of=/dev/null bs=4k count=60 iflag=direct status=none & R1=$!
dd if=/dev/zero of=/dev/$z bs=4k count=30 seek=500 oflag=direct status=none & W1=$!
wait $R1 || die "dd read"; wait $W1 || die "dd write"
sleep 1.3
zr=$(( $(diskstat $z 1) - zr0 )); zw=$(( $(diskstat $z 5) - zw0 ))
stop_iodig
assert_eq "$zr $zw" "60 30" "diskstats: 60 reads and 30 writes of $z"
assert_eq "$(jq -s "[.[] | select(.type == \"top\" and .disk == \"$z\" and .pid == $R1) | .reads] | add" "$T/t.json")" 60 \
	"top -d $z: the reader's row, its 60 reads"
assert_eq "$(jq -s "[.[] | select(.type == \"top\" and .disk == \"$z\" and .pid == $W1) | .writes] | add" "$T/t.json")" 30 \
	"top -d $z: the writer's row, its 30 writes"
assert_eq "$(jq -s "[.[] | select(.type == \"top\" and .disk == \"$z\") | .reads + .writes] | add" "$T/t.json")" "$((zr + zw))" \
	"top -d $z: every row's I/O = diskstats'"
# export: a bio-based disk's bios in iodig_request_seconds, phase q2c (its
# only phase: submission to end), the kernel's counts, scraped over HTTP
EP=$(free_port)
start_iodig "$T/export.out" export --listen "127.0.0.1:$EP"
zr0=$(diskstat $z 1); zw0=$(diskstat $z 5)
dd if=/dev/$z of=/dev/null bs=4k count=70 iflag=direct status=none
dd if=/dev/zero of=/dev/$z bs=4k count=35 seek=700 oflag=direct status=none
sleep 2.2	# the exporter folds its histograms in once a second
zr=$(( $(diskstat $z 1) - zr0 )); zw=$(( $(diskstat $z 5) - zw0 ))
curl -s "http://127.0.0.1:$EP/metrics" > "$T/metrics" || die "scrape"
stop_iodig
m() { awk -v s="iodig_request_seconds_count{disk=\"$z\",op=\"$1\",phase=\"$2\"}" '$1 == s { print $2 }' "$T/metrics"; }
assert_eq "$(m read Q2C) $(m write Q2C)" "$zr $zw" "export: $z's Q2C counts = diskstats' reads and writes (70, 35)"
assert_eq "$(grep -c "^iodig_request_seconds_count{disk=\"$z\",.*phase=\"D2C\"" "$T/metrics")" 0 "export: no D2C for a disk without requests"
# record: a bio-based disk's bio records kept, written on SIGUSR1, and
# replayed as they were (each a bio record, the kernel's count)
start_iodig "$T/r.out" record -o "$T/fz" --keep 5 -d $z
zr0=$(diskstat $z 1)
dd if=/dev/$z of=/dev/null bs=4k count=45 iflag=direct status=none
sleep 0.3
zr=$(( $(diskstat $z 1) - zr0 ))
kill -USR1 "$IODIG_PID"
for i in $(seq 50); do [ -s "$T/fz-1.rec" ] && grep -q 'fz-1.rec' "$T/r.out.err" && break; sleep 0.1; done
stop_iodig
"$IODIG" replay --json "$T/fz-1.rec" > "$T/fz.json" || die "replay"
assert_eq "$(jq -s '[.[] | select(.type == "bio" and .op == "read" and .disk == "'$z'")] | length' "$T/fz.json")" "$zr" \
	"record -d $z, replayed: a bio record per read ($zr in diskstats)"
n=$(python3 tests/schema/check.py tests/schema/bio.json "$T/fz.json" bio) || die "schema bio (replay): $n"
ok "replay's bio records fit the schema: $n"
