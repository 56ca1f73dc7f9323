# Commands with classic tracepoint programs (SEC("tp/...")), whose event ids
# libbpf reads from tracefs, on a machine where tracefs is not mounted (this
# kernel does not mount it at boot; a fresh machine failed `why`, `exec` and
# `throttle` with "No such file or directory"): each mounts it, counts what
# it counts, and leaves it unmounted, at Ctrl-C and when its reader leaves a
# pipe (SIGPIPE no longer kills it before its exit handlers).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v fincore >/dev/null || skip "needs fincore (util-linux)"
tracefs_unmounted
unmounted() { ! mountpoint -q /sys/kernel/tracing || die "tracefs left mounted after $1"; ok "tracefs unmounted after $1"; }

# exec: 7 execs of a name of its own, each seen once
cp /bin/true "$T/tfs-marker"
start_iodig "$T/exec.json" exec --json --name tfs-marker
for i in $(seq 7); do "$T/tfs-marker"; done
sleep 0.3
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "exec" and .comm == "tfs-marker")] | length' "$T/exec.json")" 7 "exec: the marker's execs"
unmounted "exec"

# why: cold reads, the page cache's adds (the filemap tracepoint, a tp/
# program) against fincore's count of the file's pages after (noatime: the
# first read's atime update could read the inode table's block, a page of
# the disk's own cache, which fincore of the file does not see)
L=$(loopdev 64)
mkfs.ext4 -q "$L" || die mkfs
mkdir "$T/mnt"; mount -o noatime "$L" "$T/mnt" || die mount; defer "umount $T/mnt"
head -c 1M /dev/urandom > "$T/mnt/f"; sync
echo 1 > /proc/sys/vm/drop_caches
assert_eq "$(fincore -n -o PAGES "$T/mnt/f" | tr -d ' ')" 0 "pages of the file cached before"
/usr/bin/python3 - "$T/go" "$T/mnt/f" > "$T/pid" <<'PY' &
import os, sys, time
print(os.getpid(), flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
fd = os.open(sys.argv[2], os.O_RDONLY)
for off in range(0, 1 << 20, 64 << 10):
    os.pread(fd, 4096, off)
PY
J=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.05; done
P=$(cat "$T/pid"); [ -n "$P" ] || die "the reader did not start"
# the kernel's own count of what fincore cannot see, by bpftrace in a mount
# namespace of its own (tracefs mounted there, not here): the file's pages
# another task evicts before fincore reads (this host's kernel reclaims on
# its own: DAMON, doctor_calls.sh; a CI run read fincore 18 against why's
# 19), and pages the reader adds to any other file or disk
INO=$(stat -c %i "$T/mnt/f"); DEV=$(devt "$L")
unshare -m --propagation private sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace -e "$0"' \
	"tracepoint:filemap:mm_filemap_delete_from_page_cache /args->i_ino == $INO && args->s_dev == $DEV && pid != $P/ { @evicted = sum(1 << args->order); }
	 tracepoint:filemap:mm_filemap_add_to_page_cache /pid == $P && (args->i_ino != $INO || args->s_dev != $DEV)/ { @other = sum(1 << args->order); }" \
	> "$T/ev.out" 2>"$T/ev.err" & EV=$!
PIDS+=("$EV")
bpftrace_attached $EV "$T/ev.err" mm_filemap_delete_from_page_cache mm_filemap_add_to_page_cache
mountpoint -q /sys/kernel/tracing && die "bpftrace's tracefs mounted here, not in its own namespace"
start_iodig "$T/why.json" why 0 -p "$P" --syscalls pread64 --json
touch "$T/go"; wait $J || die "the reader failed"
stop_iodig
unmounted "why"
cached=$(fincore -n -o PAGES "$T/mnt/f" | tr -d ' ')
bpftrace_stop "$EV" "$T/ev.out" || die "bpftrace: $(cat "$T/ev.err")"
ev=$(awk '/^@evicted:/ { print $2 }' "$T/ev.out"); ev=${ev:-0}
ot=$(awk '/^@other:/ { print $2 }' "$T/ev.out"); ot=${ot:-0}
assert_eq "$(jq -s "[.[] | select(.type == \"call\" and .pid == $P)] | length" "$T/why.json")" 16 "why: the reader's preads"
got=$(jq -s "[.[] | select(.type == \"call\" and .pid == $P) | .cache_added_pages] | add" "$T/why.json")
[ "$got" -ge "$cached" ] && [ "$got" -le $((cached + ev + ot)) ] \
	|| die "why: pages the calls added to the page cache: $got, against fincore's $cached pages of the file (+ $ev evicted by others, + $ot the reader added elsewhere)"
ok "why: pages the calls added to the page cache = fincore's $cached pages of the file (+ $ev evicted by others, + $ot the reader added elsewhere) = $got"

# throttle: attached, and gone without a trace
start_iodig "$T/thr.txt" throttle
stop_iodig
unmounted "throttle"

# a pipe's reader leaves: exec ends at its next write, as at Ctrl-C
"$IODIG" exec --name tfs-marker --ready-file "$T/ready.pipe" 2>"$T/pipe.err" | head -c 1 > /dev/null & J=$!
for i in $(seq 100); do [ -e "$T/ready.pipe" ] && break; sleep 0.05; done
[ -e "$T/ready.pipe" ] || die "exec into a pipe did not start: $(cat "$T/pipe.err")"
for i in $(seq 20); do "$T/tfs-marker"; kill -0 $J 2>/dev/null || break; sleep 0.1; done
kill -0 $J 2>/dev/null && die "exec went on after its reader left"
wait $J
unmounted "exec's reader left"
grep -v "^Tracing" "$T/pipe.err" && die "exec into a closed pipe said more than its banner"
ok "exec into a closed pipe: ended with nothing said"
