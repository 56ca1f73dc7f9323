# iodig why on fsync behind a dirty-throttled writer: ext4 on a device whose
# every request takes 10 ms (a FUSE file that keeps what is written, behind
# the loop device), a 2 MiB dirty limit, dd writing 16 MiB (throttled in
# balance_dirty_pages), and a process that writes a page and fsyncs it 10
# times meanwhile.  Known answers: dd's writes wait in balance_dirty_pages
# (throttle, 90% or more of each such write); an fsync waits for the flusher's
# writeback of dd's data, named as dd's (its pid, from the shell), no more
# bytes than dd wrote.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
S=$(slowdev 10 96 store) || exit
mkfs.ext4 -q "$S" || die mkfs
mkdir "$T/m"; mount "$S" "$T/m" || die mount; defer "umount $T/m"
for v in dirty_bytes dirty_ratio dirty_background_bytes dirty_background_ratio; do
	defer "echo $(cat /proc/sys/vm/$v) > /proc/sys/vm/$v"
done
defer "echo $(cat /proc/sys/vm/dirty_ratio) > /proc/sys/vm/dirty_ratio; echo $(cat /proc/sys/vm/dirty_background_ratio) > /proc/sys/vm/dirty_background_ratio"
echo 262144 > /proc/sys/vm/dirty_background_bytes
echo 2097152 > /proc/sys/vm/dirty_bytes
python3 - "$T/m/g" "$T/go" > "$T/f.out" <<'PY' &
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"fsyncer", 0, 0, 0)
print(os.getpid(), flush=True)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
time.sleep(0.3)  # dd's writeback under way
for i in range(10):
    os.pwrite(fd, b"y" * 4096, 4096 * i)
    os.fsync(fd)
    time.sleep(0.05)
PY
FP=$!
defer "kill $FP 2>/dev/null"
for i in $(seq 50); do [ -s "$T/f.out" ] && break; sleep 0.05; done
start_iodig "$T/f.json" why --json 5 --comm fsyncer --syscalls fsync
start_iodig "$T/f.txt" why 5 --comm fsyncer --syscalls fsync
start_iodig "$T/d.json" why --json 5 --comm dd --syscalls write
touch "$T/go"
dd if=/dev/zero of="$T/m/big" bs=64k count=256 status=none & D=$!
wait $FP || die "the fsync loop failed"
wait $D || die "dd failed"
sleep 0.3
stop_all_iodig

thr=$(jq -s '[.[] | select(.type == "call" and .parts.throttle_ns >= .wall_ns * 0.9 and ([.waits[] | select(.part == "throttle" and .in == "balance_dirty_pages")] | length) == 1)] | length' "$T/d.json")
[ "$thr" -ge 3 ] || die "dd: only $thr writes throttled in balance_dirty_pages: $(jq -c 'select(.type == "call") | [.wall_ns, .parts.throttle_ns, [.waits[] | .in]]' "$T/d.json" | head -5)"
ok "dd[$D]: $thr writes 90% or more throttled, in balance_dirty_pages"
# dd's data, anywhere in an fsync's chain of wakers (the flusher's requests,
# or the request that ended a wait)
jq -c --argjson d "$D" 'select(.type == "call") | [.waits[] | .. | objects | select(.data_of? and .data_of.pid == $d) | .data_of.bytes // .bytes] | select(length > 0)' "$T/f.json" > "$T/named"
[ -s "$T/named" ] || die "no fsync named dd[$D]'s data: $(grep waited "$T/f.txt" | head -4)"
awk '{ gsub(/[][]/, ""); n = split($0, b, ","); for (i = 1; i <= n; i++) if (b[i] > 16 * 1048576 || b[i] <= 0) bad++ } END { exit bad > 0 }' "$T/named" \
	|| die "bytes of dd's data named beyond the 16 MiB it wrote: $(cat "$T/named")"
ok "$(wc -l < "$T/named") fsync calls waited behind dd[$D]'s data (bytes named: $(tr '\n' ' ' < "$T/named"))"
grep -qE "data of dd\[$D\]" "$T/f.txt" || die "text: $(grep waited "$T/f.txt" | head -3)"
ok "text: $(grep -m1 -oE "(waited: |            )[a-z]+ [0-9.]+ ms in [a-z_]+ <- [^;]*data of dd\[$D\][^;]*" "$T/f.txt" | sed 's/^ *//' | cut -c1-300)"
