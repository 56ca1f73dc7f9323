# iodig why where block I/O is the answer: O_DIRECT reads from a device
# with a known delay (the linked request's D2C is that delay), and seed
# 000's stall (writes while the scheduler is switched: Q2G inside the I/O
# wait, and the shell that wrote the attribute named).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
LOAD="$TOP/tests/helpers/whyload.py"

# 1. a device whose every read takes 30 ms (through each call's own
# tracepoints, --syscall-events; the other tests take why's default way in)
S=$(slowdev 30 8) || exit
"$LOAD" "$T/go" direct "$S" 8 > "$T/pid" &
J=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.05; done
P=$(cat "$T/pid")
start_iodig "$T/d.json" why 10 -p "$P" --json --syscall-events
touch "$T/go"; wait $J || die "whyload failed"
stop_iodig
assert_eq "$(jq -s "[.[] | select(.type == \"call\" and .pid == $P)] | length" "$T/d.json")" 8 "O_DIRECT reads recorded"
bad=$(jq -s "[.[] | select(.type == \"call\" and .pid == $P) | select((.parts | to_entries | max_by(.value) | .key) != \"block_io_ns\" or .parts.block_io_ns < .wall_ns * 0.9 or ((.parts | add) != .wall_ns))] | length" "$T/d.json")
assert_eq "$bad" 0 "reads where block I/O is not 90% or more of a wall time the parts add up to"
# the device sleeps 30 ms a read (never less: its D2C is at least that, a
# little less only by the clocks' few us), and the request lies inside the
# call (D2C at most its wall time, itself held to the helper's clock below):
# a busy machine delays the FUSE daemon, so no upper bound of its own (seen: 33 ms)
bad=$(jq -s "[.[] | select(.type == \"call\" and .pid == $P) | select(.requests_total != 1 or .requests[0].disk != \"${S#/dev/}\" or .requests[0].d2c_ns < 29900000 or .requests[0].d2c_ns > .wall_ns)] | length" "$T/d.json")
assert_eq "$bad" 0 "reads without exactly one linked request whose D2C is 30 ms or more, within the call"
jq -e -s '[.[] | select(.type == "summary")][0] | (.syscalls[] | select(.syscall == "preadv2") | .parts.io.share > 0.9 and .disks[0].requests == 8) and .lost == 0' "$T/d.json" >/dev/null \
	|| die "summary: $(grep summary "$T/d.json")"
ok "summary: preadv2 90%+ block I/O, 8 requests on ${S#/dev/}"
why_vs_clock "$T/d.json" "$P" "$T/go.clock" 10 "O_DIRECT reads of a 30 ms device"

# 2. seed 000: O_DIRECT writes while a shell switches the scheduler
L=$(loopdev 128); n=${L#/dev/}
start_iodig "$T/s.json" why 2 --comm fio --syscalls pwrite64 --json
fio --name=w --filename="$L" --direct=1 --rw=randwrite --bs=4k --size=64M --time_based \
    --runtime=3 --ioengine=psync --numjobs=2 >/dev/null &
FIO=$!
sleep 0.5
flip_scheduler "$L" 6 "$T/writer"
wait $FIO || die fio
stop_iodig
w=$(cat "$T/writer")
stalled=$(jq -s "[.[] | select(.type == \"call\" and .syscall == \"pwrite64\" and .parts.block_io_ns >= .wall_ns * 0.5 and ((.parts | add) == .wall_ns) and any(.requests[]; .disk == \"$n\" and .q2g_ns > .d2c_ns and .q2g_ns >= 1000000 and .queue_write.pid == $w and .queue_write.attr == \"scheduler\"))] | length" "$T/s.json")
[ "$stalled" -ge 4 ] || die "only $stalled stalled writes name bash[$w] (want >= 4): $(grep '"call"' "$T/s.json" | head -c 2000)"
ok "$stalled writes: block I/O dominant, their request's Q2G over D2C, bash[$w]'s scheduler write named"
# (block I/O more than half of what the host did not take: a CI run had
# 47% of the calls' time stolen, and io 45% of the whole)
jq -e -s "[.[] | select(.type == \"summary\")][0] | .syscalls[] | select(.syscall == \"pwrite64\") | .parts.io.sum_ns > 0.5 * (.wall_ns - .parts.steal.sum_ns) and (.disks[] | select(.disk == \"$n\") | .q2g_ns > .d2c_ns)" "$T/s.json" >/dev/null \
	|| die "summary does not show Q2G inside the block I/O of pwrite64: $(grep summary "$T/s.json")"
ok "summary: pwrite64's time mostly block I/O, and of that Q2G more than D2C on $n"

# 3. buffered writes to a device whose writes take 20 ms, beyond a 1 MiB
# dirty limit: the writer is throttled (balance_dirty_pages)
W=$(slowdev 20 64 rw) || exit
restore_vm() {	# NAME_BYTES NAME_RATIO: put back whichever of the pair was in use
	local b r
	b=$(cat /proc/sys/vm/$1); r=$(cat /proc/sys/vm/$2)
	if [ "$b" = 0 ]; then defer "echo $r > /proc/sys/vm/$2"; else defer "echo $b > /proc/sys/vm/$1"; fi
}
restore_vm dirty_bytes dirty_ratio
restore_vm dirty_background_bytes dirty_background_ratio
echo 262144 > /proc/sys/vm/dirty_background_bytes
echo 1048576 > /proc/sys/vm/dirty_bytes
start_iodig "$T/t.json" why 10 --comm dd --syscalls write --json
timeout 60 dd if=/dev/zero of="$W" bs=64k count=64 status=none || die "dd to $W"
stop_iodig
thr=$(jq -s '[.[] | select(.type == "call" and .syscall == "write" and .parts.throttle_ns >= .wall_ns * 0.9 and ((.parts | add) == .wall_ns))] | length' "$T/t.json")
[ "$thr" -ge 3 ] || die "only $thr writes were 90% or more dirty throttling: $(grep '"call"' "$T/t.json" | head -c 1500)"
ok "$thr writes: 90% or more of their time in dirty-page throttling"
