# iodig stacks (and snoop -K) take a block submission's kernel stack from a
# memo of its call path (src/bpf/kmemo.bpf.h); the kernel's own walk is the
# judge: on a mix of paths (O_DIRECT through libaio and io_uring, buffered reads with
# readahead, page faults of mmap, writeback, the journal, fsync), each
# kernel stack counts exactly the bios bpftrace's kstack counts for it at
# the same tracepoint, most stacks came from memos, and of the uses walked
# again to check, none differed.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftrace >/dev/null || skip "needs bpftrace"
tracefs_mounted	# bpftrace finds tracepoints there
L=$(loopdev 256); d=${L#/dev/}
# (no lazy init: its bios would come between the two tracers' starts)
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$L" || die "mkfs.ext4"
mkdir "$T/m"; mount -o noinit_itable,no_prefetch_block_bitmaps "$L" "$T/m" || die "mount"; defer "umount $T/m"
fio --name=prep --filename="$T/m/f" --size=64M --rw=write --bs=1M --end_fsync=1 --output=/dev/null || die "fio prep"
settle "$d"

devt=$(devt "$d")
bpftrace -e "tracepoint:block:block_bio_queue /args->dev == $devt/ { @[kstack] = count(); }" > "$T/bt.out" 2>"$T/bt.err" & B=$!
PIDS+=("$B")
bpftrace_attached $B "$T/bt.err" block_bio_queue
# beside it the same stacks walked at every bio (--walk-each)
start_iodig "$T/w.json" stacks -d "$d" -K -n 0 --json --walk-each
W=$IODIG_PID WOUT=$IODIG_OUT
start_iodig "$T/s.json" stacks -d "$d" -K -n 0 --json

f="--filename=$T/m/f --size=64M --runtime=1 --time_based --output=/dev/null"
fio --name=aio $f --rw=randread --bs=4k --ioengine=libaio --iodepth=8 --direct=1 || die "fio libaio"
fio --name=uring $f --rw=randread --bs=4k --ioengine=io_uring --iodepth=8 --direct=1 || die "fio io_uring"
fio --name=psync $f --rw=randwrite --bs=4k --ioengine=psync --direct=1 || die "fio psync"
echo 3 > /proc/sys/vm/drop_caches
fio --name=buffered $f --rw=read --bs=64k --ioengine=psync || die "fio buffered"
echo 3 > /proc/sys/vm/drop_caches
fio --name=mmap $f --rw=randread --bs=4k --ioengine=mmap || die "fio mmap"
fio --name=fsync $f --rw=randwrite --bs=4k --ioengine=psync --fsync=4 || die "fio fsync"
fio --name=wb --filename="$T/m/g" --size=32M --rw=write --bs=1M --ioengine=psync --end_fsync=1 --output=/dev/null || die "fio writeback"
sync
settle "$d"
# the stacks and their counts take kernel memory for what they hold (the
# kernel's own account: memlock), not for all they may (a preallocated
# kstackmap of 16384 stacks was 17 MB): where the kernel allocates for BPF
# in any context (bpf_mem_alloc, 6.1)
if bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "STRUCT 'bpf_mem_alloc'"; then
	for m in kstackmap counts; do
		read -r fl ml me vs <<<"$(map_mem "$IODIG_PID" $m)" || die "stacks' map $m not found"
		[ $((fl & 1)) = 1 ] && [ "$ml" -lt $((me * vs / 16)) ] || die "stacks' $m: flags $fl, memlock $ml for $me entries of $vs bytes"
		echo "  $m: $ml bytes of kernel memory (preallocated: $((me * vs)) and more)"
	done
	ok "stacks' kstackmap and counts grow as used (BPF_F_NO_PREALLOC)"
fi
stop_iodig
IODIG_PID=$W IODIG_OUT=$WOUT stop_iodig
bpftrace_stop "$B" "$T/bt.out" || die "bpftrace: $(cat "$T/bt.err")"

# each stack as "sym+offset;..." innermost first, its count; the dispatch
# frames (BPF, perf, tracepoints) left out on both sides, as iodig shows them
bt_tsv() {	# bpftrace's @[kstack] counts
	awk '/^@\[/ { s = ""; next }
	     /^\]: / { print s "\t" $2; next }
	     /^ +[^ ]/ { f = $1; if (f ~ /^(bpf_|__bpf_|trace_call_bpf|perf_trace_|__traceiter_)/ && s == "") next;
			 s = s (s == "" ? "" : ";") f }' "$1" |
		awk -F'\t' '{ n[$1] += $2 } END { for (s in n) print s "\t" n[s] }' | sort
}
jq -r 'select(.type == "stack") | [([.kernel[] | "\(.sym)+\(.offset)"] | join(";")), .count] | @tsv' "$T/s.json" |
	awk -F'\t' '{ n[$1] += $2 } END { for (s in n) print s "\t" n[s] }' | sort > "$T/iodig.tsv"
bt_tsv "$T/bt.out" > "$T/bt.tsv"
ns=$(wc -l < "$T/bt.tsv")
[ "$ns" -ge 6 ] || die "only $ns kernel stacks in the mix: $(cut -c1-200 "$T/bt.tsv")"
diff "$T/bt.tsv" "$T/iodig.tsv" > "$T/diff" || die "stacks and counts differ from bpftrace's (< bpftrace, > iodig): $(head -c 3000 "$T/diff")"
ok "$ns kernel stacks, each with the count bpftrace's kstack gives it ($(awk -F'\t' '{ n += $2 } END { print n }' "$T/bt.tsv") bios)"
for w in iomap_dio_bio_iter io_issue_sqe filemap_read filemap_fault wb_workfn jbd2_journal_commit_transaction ext4_sync_file; do
	grep -q "$w" "$T/iodig.tsv" || die "no stack through $w: $(cut -f1 "$T/iodig.tsv" | cut -c1-300)"
done
ok "among them: O_DIRECT, io_uring, readahead, mmap faults, writeback, the journal and fsync"
sm=$(jq -c 'select(.type == "summary") | [.events, .kstack_walked, .kstack_memo, .kstack_checked, .kstack_differed]' "$T/s.json")
echo "  [events, walked, from memos, checked, differed]: $sm"
jq -e 'select(.type == "summary") | .kstack_walked + .kstack_memo == .events and .kstack_memo >= 0.9 * .events
	and .kstack_checked > 0 and .kstack_differed == 0' "$T/s.json" >/dev/null || die "memos: $sm"
ok "at least 90% of the stacks from memos, the rest walked; of those walked again to check, none differed"
# --walk-each: the same stacks and counts, every one walked
jq -r 'select(.type == "stack") | [([.kernel[] | "\(.sym)+\(.offset)"] | join(";")), .count] | @tsv' "$T/w.json" |
	awk -F'\t' '{ n[$1] += $2 } END { for (s in n) print s "\t" n[s] }' | sort > "$T/walk.tsv"
diff "$T/bt.tsv" "$T/walk.tsv" > "$T/diffw" || die "--walk-each: stacks and counts differ from bpftrace's: $(head -c 2000 "$T/diffw")"
jq -e 'select(.type == "summary") | .kstack_walked == .events and .kstack_memo == 0 and .kstack_offstack == 0' "$T/w.json" >/dev/null \
	|| die "--walk-each: $(jq -c 'select(.type == "summary") | [.events, .kstack_walked, .kstack_memo, .kstack_offstack]' "$T/w.json")"
ok "--walk-each: the same $ns stacks and counts as bpftrace's, each of its $(jq 'select(.type == "summary") | .events' "$T/w.json") bios walked"

# 2. snoop -K: each request's kernel stack at Q, from the life engine's
# memos, against bpftrace's kstack for fio's bios (one bio a request: 4 KiB
# O_DIRECT, merges off)
echo 2 > "/sys/block/$d/queue/nomerges"; defer "echo 0 > /sys/block/$d/queue/nomerges"
bpftrace -e "tracepoint:block:block_bio_queue /args->dev == $devt && comm == \"fio\"/ { @[kstack] = count(); }" > "$T/bt2.out" 2>"$T/bt2.err" & B=$!
PIDS+=("$B")
bpftrace_attached $B "$T/bt2.err" block_bio_queue
start_iodig "$T/sn.json" snoop -K -d "$d" --json
r="--rate_iops=4000 --iodepth=4 --direct=1 --bs=4k"
fio --name=aio $f $r --rw=randread --ioengine=libaio || die "fio libaio"
fio --name=uring $f $r --rw=randread --ioengine=io_uring || die "fio io_uring"
fio --name=psync $f $r --rw=randwrite --ioengine=psync || die "fio psync"
settle "$d"
stop_iodig
bpftrace_stop "$B" "$T/bt2.out" || die "bpftrace: $(cat "$T/bt2.err")"
jq -r 'select(.comm == "fio" and .stack.kernel) | [.stack.kernel[] | "\(.sym)+\(.offset)"] | join(";")' "$T/sn.json" |
	sort | uniq -c | awk '{ print $2 "\t" $1 }' | sort > "$T/sn.tsv"
bt_tsv "$T/bt2.out" > "$T/bt2.tsv"
# (a completion the kernel ran no program for has no record: snoop counts
# it in skipped, from diskstats; each is one of some stack's bios)
sk=$(jq 'select(.type == "summary") | .skipped' "$T/sn.json")
short=$(awk -F'\t' 'NR == FNR { b[$1] = $2; next } { s[$1] = $2 }
	END { for (k in b) { d = b[k] - s[k]; if (d < 0) { print "more"; exit } n += d }
	      for (k in s) if (!(k in b)) { print "other"; exit } print n }' "$T/bt2.tsv" "$T/sn.tsv")
[ "$short" = "$sk" ] || die "snoop -K's stacks against bpftrace's: $short short, $sk skipped: $(diff "$T/bt2.tsv" "$T/sn.tsv" | head -c 3000)"
ok "snoop -K: $(wc -l < "$T/sn.tsv") kernel stacks, each on as many of fio's requests as bpftrace's kstack has bios ($(awk -F'\t' '{ n += $2 } END { print n }' "$T/sn.tsv")), but for the $sk skipped"
sm=$(jq -c 'select(.type == "summary") | [.completed, .lost, .kstack_walked, .kstack_memo, .kstack_checked, .kstack_differed]' "$T/sn.json")
echo "  [completed, lost, walked, from memos, checked, differed]: $sm"
jq -e 'select(.type == "summary") | .lost == 0 and .kstack_memo >= 0.9 * (.kstack_walked + .kstack_memo)
	and .kstack_checked > 0 and .kstack_differed == 0' "$T/sn.json" >/dev/null || die "snoop's memos: $sm"
ok "none lost; at least 90% from memos; of those checked, none differed"
