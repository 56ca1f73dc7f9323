# iodig why, more known answers: readahead counted against the kernel's own
# tracepoint counts (perf stat, no BPF), io_uring_enter against fio's totals
# and diskstats, and -d keeping only the calls that waited on that disk.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v fio >/dev/null || skip "needs fio"
command -v perf >/dev/null || skip "needs perf (linux-perf)"
LOAD="$TOP/tests/helpers/whyload.py"

# 1. a cold file read from start to end in 64 KiB reads: the readahead each
# call started, summed, = what the kernel's readahead tracepoints fired for
# the reader's pid, counted by perf (a counting perf event, no BPF)
L=$(loopdev 64)
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$L" || die mkfs
mkdir "$T/mnt"; mount "$L" "$T/mnt" || die mount; defer "umount $T/mnt"
head -c 16M /dev/urandom > "$T/mnt/f"; sync
python3 -c "import os; fd = os.open('$T/mnt/f', os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)"
assert_eq "$(fincore -b -n -o RES "$T/mnt/f" | tr -d ' ')" 0 "bytes of the file cached before"
"$LOAD" "$T/go.seq" seq "$T/mnt/f" 64 > "$T/pid.seq" & J=$!
for i in $(seq 50); do [ -s "$T/pid.seq" ] && break; sleep 0.05; done
P=$(cat "$T/pid.seq")
[ -n "$P" ] || die "whyload did not start"
start_iodig "$T/seq.json" why 0 -p "$P" --syscalls read --json
perf stat -x, -e readahead:page_cache_sync_ra,readahead:page_cache_async_ra -p "$P" -o "$T/perf.seq" & PERF=$!
sleep 0.5	# perf stat -p has no ready signal: it attaches within milliseconds
touch "$T/go.seq"
wait $J || die "whyload seq failed"
wait $PERF	# perf stat -p ends with the process it counts
stop_iodig
perf_count() { awk -F, -v e="$1" '$3 == e { print $1 }' "$T/perf.seq"; }
sync_k=$(perf_count readahead:page_cache_sync_ra); async_k=$(perf_count readahead:page_cache_async_ra)
[ -n "$sync_k" ] && [ -n "$async_k" ] || die "perf stat counted nothing: $(cat "$T/perf.seq")"
[ "$async_k" -gt 0 ] || die "no async readahead in a sequential cold read: $(cat "$T/perf.seq")"
assert_eq "$(jq -s -r "[.[] | select(.type == \"call\" and .pid == $P)] | [(map(.readahead_sync) | add), (map(.readahead_async) | add)] | @tsv" "$T/seq.json")" \
	"$sync_k	$async_k" "readahead sync and async in the calls, against perf's count of the tracepoints ($sync_k, $async_k)"
assert_eq "$(jq -s "[.[] | select(.type == \"call\" and .pid == $P) | .ret] | add" "$T/seq.json")" 16777216 "bytes the calls returned"
why_vs_clock "$T/seq.json" "$P" "$T/go.seq.clock" 0 "sequential reads" 0.5	# the helper's Python around each call

# 2. io_uring: fio, one 4 KiB O_DIRECT read at a time from a device that
# answers in 5 ms.  The requests are submitted inside io_uring_enter (the
# requests linked to its calls = fio's total = diskstats), and the calls
# that wait for a completion wait (as block I/O) for about the device time
S=$(slowdev 5 64) || exit
s=${S#/dev/}
r0=$(diskstat "$s" 1)
# fio in one process (--thread), its pid known before it starts: a shell that
# waits for the go file, then execs fio
sh -c 'echo $$; while [ ! -e "$1" ]; do sleep 0.02; done; shift; exec "$@"' sh "$T/go.u" \
	fio --name=u --filename="$S" --rw=randread --bs=4k --direct=1 --ioengine=io_uring --iodepth=1 \
	--thread --number_ios=40 --size=64M --output-format=json --output="$T/fio.json" > "$T/pid.u" & FIO=$!
for i in $(seq 50); do [ -s "$T/pid.u" ] && break; sleep 0.05; done
U=$(cat "$T/pid.u")
start_iodig "$T/u.json" why 0 -p "$U" --syscalls io_uring_enter --json
touch "$T/go.u"
wait $FIO || die "fio failed"
stop_iodig
n=$(jq '.jobs[0].read.total_ios' "$T/fio.json")
assert_eq "$n" 40 "fio's reads"
assert_eq "$(( $(diskstat "$s" 1) - r0 ))" 40 "diskstats: reads of $s"
slow=$(jq -s '[.[] | select(.type == "call" and .syscall == "io_uring_enter" and .wall_ns >= 4000000)] | length' "$T/u.json")
# one wait per read, unless fio got to its wait only after the completion (a
# busy CPU: seen 38 of 40 with a spinner on each CPU)
[ "$slow" -le 40 ] && [ "$slow" -ge 30 ] || die "io_uring_enter calls of 4 ms or more: $slow, want 30-40 (one wait per read)"
ok "io_uring_enter calls of 4 ms or more: $slow (one wait per read; 30-40)"
assert_eq "$(jq -s "[.[] | select(.type == \"call\" and .syscall == \"io_uring_enter\") | .requests[] | select(.disk == \"$s\" and .op == \"read\")] | length" "$T/u.json")" 40 \
	"$s reads linked to io_uring_enter calls (summary: $(jq -c 'select(.type == "summary") | del(.syscalls)' "$T/u.json"))"
# a wait for a completion is an I/O wait (io_uring sleeps in io_schedule while
# requests are in flight), for requests an earlier call submitted
# (then runnable: on a busy machine the woken fio may wait for a CPU, seen 2 ms)
assert_eq "$(jq -s '[.[] | select(.type == "call" and .wall_ns >= 4000000) | select((.parts | to_entries | max_by(.value) | .key) != "block_io_ns" or .parts.block_io_ns + .parts.runnable_ns < .wall_ns * 0.95 or .requests_total > 0)] | length' "$T/u.json")" 0 \
	"waits of 4 ms or more where block I/O is not the largest part, not 95%+ with runnable, or with requests of their own"
ui=$(jq 'select(.type == "summary") | .unlinked_io' "$T/u.json")
[ "$ui" -ge "$slow" ] && [ "$ui" -le 40 ] || die "calls counted as waiting for I/O their thread submitted earlier (unlinked_io): $ui, want $slow-40"
ok "calls counted as waiting for I/O their thread submitted earlier (unlinked_io): $ui ($slow-40)"
clat=$(jq '.jobs[0].read.clat_ns.mean' "$T/fio.json")
jq -e -s "[.[] | select(.type == \"call\" and .syscall == \"io_uring_enter\" and .wall_ns >= 4000000) | .wall_ns] | (add / length) as \$m | \$m <= $clat * 1.05 and \$m >= $clat * 0.8" "$T/u.json" >/dev/null \
	|| die "the waits' mean is not within 80-105% of fio's clat mean $clat: $(jq -s -c '[.[] | select(.type == "call" and .wall_ns >= 4000000) | .wall_ns]' "$T/u.json")"
ok "the waits' mean within 80-105% of fio's clat mean ($clat ns)"

# 3. -d: two readers of two devices at once; -d of one keeps its reader's
# calls (all of them: each waited on that disk) and none of the other's
# (Python's os.preadv is preadv2(2))
A=$(loopdev 16); B=$(loopdev 16)
for x in a b; do
	dev=$A; [ $x = b ] && dev=$B
	"$LOAD" "$T/go.$x" direct "$dev" 30 > "$T/pid.$x" &
	eval "J$x=\$!"
done
for i in $(seq 50); do [ -s "$T/pid.a" ] && [ -s "$T/pid.b" ] && break; sleep 0.05; done
PA=$(cat "$T/pid.a"); PB=$(cat "$T/pid.b")
start_iodig "$T/d.json" why 0 -d "${A#/dev/}" --syscalls preadv2 --json
touch "$T/go.a" "$T/go.b"
wait $Ja || die "reader a failed"; wait $Jb || die "reader b failed"
stop_iodig
assert_eq "$(jq -s -c "[.[] | select(.type == \"call\") | .pid] | group_by(.) | map([.[0], length])" "$T/d.json")" "[[$PA,30]]" \
	"-d ${A#/dev/}: [pid, calls] of the two readers"
why_vs_clock "$T/d.json" "$PA" "$T/go.a.clock" 0 "O_DIRECT reads under -d" 0.5

# 4. the names of the files a process read, told after it has exited: a
# file two directories down a mounted ext4, one on /dev/shm (tmpfs), one
# unlinked while open, a pipe and a socket.  The kernel's dentries name
# them at the call's end (a readlink of /proc/PID/fd/N after the process
# was gone had nothing to read); a pipe's and a socket's, which are not
# their dentries', from their inode numbers (as readlink says them)
mkdir -p "$T/mnt/d1/d2"; echo a > "$T/mnt/d1/d2/name"; echo b > "$T/mnt/gone"
echo c > /dev/shm/iodig-why-name; defer "rm -f /dev/shm/iodig-why-name"
python3 - "$T/go.names" "$T/mnt/d1/d2/name" /dev/shm/iodig-why-name "$T/mnt/gone" > "$T/pid.names" <<'PY' & J=$!
import os, socket, sys, time
print(os.getpid(), flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
fds = [os.open(p, os.O_RDONLY) for p in sys.argv[2:]]
os.unlink(sys.argv[4])
r, w = os.pipe()
s1, s2 = socket.socketpair()
os.write(w, b"p"); s2.send(b"s")
for fd in fds + [r, s1.fileno()]:
    os.read(fd, 16)
with open(sys.argv[1] + ".ino", "w") as f:
    f.write("%d %d\n" % (os.fstat(r).st_ino, os.fstat(s1.fileno()).st_ino))
PY
for i in $(seq 50); do [ -s "$T/pid.names" ] && break; sleep 0.05; done
P=$(cat "$T/pid.names")
start_iodig "$T/names.json" why 0 -p "$P" --syscalls read --json
touch "$T/go.names"; wait $J || die "the names' reader failed"
sleep 0.3	# (the reader polls every 100 ms: gone before it read the records)
stop_iodig
read -r PI SI < "$T/go.names.ino"
assert_eq "$(jq -r "select(.type == \"call\" and .pid == $P and .ret > 0) | .file" "$T/names.json" | tr '\n' '|')" \
	"$T/mnt/d1/d2/name|/dev/shm/iodig-why-name|$T/mnt/gone (deleted)|pipe:[$PI]|socket:[$SI]|" \
	"the files read by a process gone, as named"
