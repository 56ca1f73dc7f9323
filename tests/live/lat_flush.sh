# lat -F on ext4 with fsync: flushes separated from reads and writes, and
# every op's count equal to its /proc/diskstats delta (writes sent through
# the flush machinery are counted once, when their sequence ends).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 256); n=${L#/dev/}
# no lazy inode-table init: ext4lazyinit would zero tables in the background
# (write-zeroes requests, which diskstats counts as writes) at random times
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$L" || die mkfs
# no block-bitmap prefetch either: ext4 reads the bitmaps in the background
# a few seconds after mount (5 reads here, twice seen landing between lat's
# attach and the first diskstats read: 71 counted, 66 in the delta)
mkdir "$T/mnt"; mount -o no_prefetch_block_bitmaps "$L" "$T/mnt" || die mount; defer "umount $T/mnt"
settle "$L"
start_iodig "$T/f.json" lat -F -d "$n" --json
r0=$(diskstat $n 1); w0=$(diskstat $n 5); f0=$(diskstat $n 16)
fio --name=f --directory="$T/mnt" --rw=write --bs=4k --size=4M --fsync=1 --ioengine=psync >/dev/null || die fio
fio --name=r --directory="$T/mnt" --rw=read --bs=64k --size=4M --direct=1 --ioengine=psync >/dev/null || die fio
sync
settle "$L"
stop_iodig
r=$(( $(diskstat $n 1) - r0 )); w=$(( $(diskstat $n 5) - w0 )); f=$(( $(diskstat $n 16) - f0 ))
echo "  diskstats: reads $r writes $w flushes $f"
[ "$f" -ge 1000 ] || die "expected >= 1000 flushes from 1024 fsyncs, diskstats says $f"
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/f.json")
assert_seen "$(jcount "$T/f.json" '.op == "flush"')" "$sk" "$f" "flush requests"
# empty preflush writes never reach the device: counted apart, not timed
ni=$(jq -s '[.[] | select(.type == "interval_end") | .not_issued] | add' "$T/f.json")
assert_seen "$(( $(jcount "$T/f.json" '.op == "write"') + ni ))" "$sk" "$w" "write requests (timed + $ni not issued)"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .unstamped] | add' "$T/f.json")" 0 "unstamped"
assert_seen "$(jcount "$T/f.json" '.op == "read"')" "$sk" "$r" "read requests"
jq -e -s 'any(.[]; .type == "hist" and .op == "write" and (.flags | index("sync")))' "$T/f.json" >/dev/null ||
	die "no write carries the sync flag"
ok "sync writes told apart by flag"
# from allocation (-Q) the empty preflush writes are timed like the rest
start_iodig "$T/q.json" lat -F -Q -d "$n" --json
w0=$(diskstat $n 5)
fio --name=g --directory="$T/mnt" --rw=write --bs=4k --size=2M --fsync=1 --ioengine=psync >/dev/null || die fio
sync
settle "$L"
stop_iodig
assert_seen "$(jcount "$T/q.json" '.op == "write"')" "$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/q.json")" \
	"$(( $(diskstat $n 5) - w0 ))" "-Q write requests, all timed"
