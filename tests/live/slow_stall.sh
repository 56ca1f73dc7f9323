# The Ceph stall of seed 000, reproduced: while fio writes O_DIRECT to a loop
# device, a shell switches its scheduler (freezing the queue each time).
# iodig slow reports the stalled requests with Q2G dominant and names the
# shell that wrote the attribute; a control run without switching reports none.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
fio_bg() {
	fio --name=w --filename="$L" --direct=1 --rw=randwrite --bs=4k --size=64M --time_based \
	    --runtime=3 --ioengine=libaio --iodepth=4 >/dev/null &
	FIO=$!
}

start_iodig "$T/s.json" slow 2 -d "$n" --json
fio_bg
sleep 0.5
flip_scheduler "$L" 6 "$T/writer"
wait $FIO || die fio
stop_iodig
w=$(cat "$T/writer")
assert_eq "$(jq -s '[.[] | select(.type == "queue_write")] | length' "$T/s.json")" 12 "scheduler writes seen"
assert_eq "$(jq -s "[.[] | select(.type == \"queue_write\" and .pid == $w and .attr == \"scheduler\" and .disk == \"$n\")] | length" "$T/s.json")" 12 "writes attributed to the writing shell (pid $w) and disk"
stalled=$(jq -s "[.[] | select(.type == \"request\" and .dominant == \"Q2G\" and .q2g_ns >= 2000000 and .queue_write.pid == $w and .queue_write.attr == \"scheduler\")] | length" "$T/s.json")
[ "$stalled" -ge 6 ] || die "only $stalled Q2G stalls named pid $w (want >= 6 of 12 switches): $(head -c 2000 "$T/s.json")"
ok "$stalled requests stalled in Q2G, each naming bash[$w] and its scheduler write"
jq -e -s 'all(.[] | select(.type == "request"); .q2c_ns >= 2000000)' "$T/s.json" >/dev/null || die "a record under the 2 ms threshold"
ok "every record is over the 2 ms threshold"
jq -e -s '[.[] | select(.type == "summary")][0] | .lost == 0 and .queue_writes_watched' "$T/s.json" >/dev/null || die "summary: $(grep summary "$T/s.json")"

# control: the same load, no switching
start_iodig "$T/c.json" slow 2 -d "$n" --json
fio_bg
wait $FIO || die fio
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "request" and .dominant == "Q2G")] | length' "$T/c.json")" 0 "Q2G stalls without switching"
assert_eq "$(jq -s '[.[] | select(.queue_write != null or .type == "queue_write")] | length' "$T/c.json")" 0 "queue writes without switching"
