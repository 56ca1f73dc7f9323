#!/bin/bash
# bench/cache.sh [MIB] [ROUNDS]: what iodig cache and iodig readahead cost a
# cached-read loop: a file of MIB MiB (default 64) on ext4 on a loop device,
# all in the page cache, read with 4 KiB read(2) calls (python, one
# mm_filemap_get_pages event each), best of ROUNDS passes; untraced, under
# iodig cache (one line, and --by file), iodig readahead, and a bpftrace
# stand-in counting the same two tracepoints (libbpf-tools cachestat and
# readahead need kprobes, which this kernel lacks).  BPF ns per event from
# kernel.bpf_stats_enabled; then cold reads of the file (every page an
# add_to_page_cache), as the cost per page added.
set -eu
cd "$(dirname "$0")/.."
mib=${1:-64}; rounds=${2:-5}
. bench/lib.sh
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
mnt=$(mktemp -d); mount "$dev" "$mnt"
trap 'umount $mnt; rmdir $mnt; losetup -d $dev; rm -f $img' EXIT
head -c "${mib}M" /dev/urandom > "$mnt/f"; sync; cat "$mnt/f" > /dev/null
sysctl -qw kernel.bpf_stats_enabled=1
pass() {	# MODE: best ns per 4 KiB read over the rounds (warm), or one cold pass
	/usr/bin/python3 - "$mnt/f" "$rounds" "$1" <<'PY'
import os, sys, time
f, rounds, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
best = None
for r in range(rounds if mode == "warm" else 1):
    fd = os.open(f, os.O_RDONLY)
    if mode == "cold":
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    n, t0 = 0, time.perf_counter_ns()
    while os.read(fd, 4096):
        n += 1
    t = (time.perf_counter_ns() - t0) / n
    os.close(fd)
    best = t if best is None else min(best, t)
print(int(best))
PY
}
prog_ns() {	# PID: run_time_ns and run_cnt summed over its BPF programs
	bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
ids = set(int(x) for x in sys.argv[1:])
ns = cnt = 0
for p in json.load(sys.stdin):
    if p["id"] in ids:
        ns += p.get("run_time_ns", 0); cnt += p.get("run_cnt", 0)
print(ns, cnt)' $(ls -l /proc/"$1"/fd 2>/dev/null | sed -n 's/.*anon_inode:bpf-prog.*//p' >/dev/null; \
	for fd in /proc/"$1"/fdinfo/*; do sed -n 's/^prog_id:\t*//p' "$fd"; done 2>/dev/null)
}
base=$(pass warm); cold0=$(pass cold)
echo "cached 4 KiB reads of a ${mib} MiB file: best of $rounds passes; untraced $base ns a read, cold $cold0 ns a read"
echo
echo "| tool | ns per cached read | added | x untraced | BPF ns per program run | cold: ns per read (a page added) |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| none | $base | | 1.00 | | $cold0 |"
for tool in "iodig cache" "iodig cache --by file" "iodig readahead" "bpftrace (2 counts)"; do
	rm -f /tmp/iodig-bench-ready
	case $tool in
	"iodig cache") ./iodig cache --ready-file /tmp/iodig-bench-ready >/dev/null 2>&1 & ;;
	"iodig cache --by file") ./iodig cache --by file --ready-file /tmp/iodig-bench-ready >/dev/null 2>&1 & ;;
	"iodig readahead") ./iodig readahead --ready-file /tmp/iodig-bench-ready >/dev/null 2>&1 & ;;
	bpftrace*) bpftrace -e 'tracepoint:filemap:mm_filemap_get_pages { @a[comm] = count(); }
		tracepoint:filemap:mm_filemap_add_to_page_cache { @m[comm] = count(); }' >/dev/null 2>&1 &
		sleep 3; touch /tmp/iodig-bench-ready ;;
	esac
	p=$!
	while [ ! -e /tmp/iodig-bench-ready ]; do sleep 0.05; done
	read -r ns0 cnt0 <<<"$(prog_ns $p)"
	x=$(pass warm)
	read -r ns1 cnt1 <<<"$(prog_ns $p)"
	c=$(pass cold)
	kill -INT $p; wait $p 2>/dev/null || true
	per=$(( (cnt1 - cnt0) > 0 ? (ns1 - ns0) / (cnt1 - cnt0) : 0 ))
	echo "| $tool | $x | +$((x - base)) | $(python3 -c "print(f'{$x/$base:.2f}')") | $per | $c |"
done
sysctl -qw kernel.bpf_stats_enabled=0
