# iodig slow names who held the tags a request waited for: a slow device
# (each read 5 ms, a FUSE file behind the loop device, one read at a time)
# with nr_requests lowered to 4, flooded by fio (4 threads of one process,
# 8 reads in flight each) while another process reads 30 blocks one at a time.  Each
# of the reader's requests that waited 1 ms or more before its allocation
# names fio's pid as holding all the tags when it began to wait: 3 or 4 of
# the 4 there are.  export's block_getrq program is attached only once
# requests wait for tags, and detached once they have not for 12 s.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
S=$(slowdev 5 64) || exit
s=${S#/dev/}
q=/sys/block/$s/queue
defer "echo $(cat $q/nr_requests) > $q/nr_requests"
echo 4 > $q/nr_requests || die "nr_requests 4 refused"
start_iodig "$T/s.json" slow 1 --json -d "$s"
start_iodig "$T/s.txt" slow 1 -d "$s"
EP=$(free_port)
start_iodig "$T/e.out" export --tag-holders --listen "127.0.0.1:$EP" -d "$s"
E=$IODIG_PID
# export's G notes grants and nothing else: attached once a request has
# waited for a tag (life.c, lazy grants), not before
assert_eq "$(own_links "$E" life_getrq)" 0 "export: block_getrq links before any wait for a tag"
# (long enough for a loaded host to start iodig and the reader in; stopped
# once the reader is done: a flood that ended before the reader's last read,
# seen once, left its reads nothing to wait for)
# Four threads of 8 reads each, not one of 32: io_submit() sleeps in the
# tag wait, so one submitting thread has one request waiting at a time, and
# while it reaps completions no tag is asked for; a reader's request then
# found a tag free (3 of 30 waited in a CI run, 2 of 3 runs here; 7 the
# third).  With four, a freed tag has a flood thread waiting for it.
fio --name=flood --thread --numjobs=4 --filename="$S" --readonly --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randread --bs=4k --size=32M --time_based --runtime=60 > "$T/fio.out" 2>&1 &
F=$!
defer "kill -INT $F"
# the flood is on once iodig has seen fio's requests wait for tags
for i in $(seq 200); do grep -q '"comm":"fio".*"tags"' "$T/s.json" && break; sleep 0.05; done
grep -q '"comm":"fio".*"tags"' "$T/s.json" || die "fio's flood did not make its own requests wait for tags in 10 s"
python3 - "$S" > "$T/reader.out" <<'PY' || die "the reader failed"
import mmap, os, sys
print(os.getpid(), flush=True)
buf = mmap.mmap(-1, 4096)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
for i in range(30):
    os.preadv(fd, [buf], 48 * 1048576 + 4096 * i)
PY
kill -0 $F 2>/dev/null || die "fio's flood ended before the reader's last read: $(tail -3 "$T/fio.out")"
assert_eq "$(own_links "$E" life_getrq)" 1 "export: block_getrq links while requests wait for tags"
kill -INT $F; wait $F || true	# (SIGINT's own status: the flood did its part)
T0=$(date +%s%N)
sleep 0.5	# (records reach the exporter within its 100 ms drain)
curl -s "http://127.0.0.1:$EP/metrics" > "$T/metrics" || die "export: no /metrics"
# ... and let go 2 s after the last arming ends (10 s after the last wait,
# which came just before the flood stopped): still there at 9 s, gone by 14
ms() { echo $((($(date +%s%N) - T0) / 1000000)); }
left=$((9000 - $(ms)))
[ "$left" -le 0 ] || sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"
assert_eq "$(own_links "$E" life_getrq)" 1 "export: block_getrq links 9 s after the last wait"
while [ "$(own_links "$E" life_getrq)" != 0 ] && [ "$(ms)" -lt 14000 ]; do sleep 0.2; done
gone=$(ms)
assert_eq "$(own_links "$E" life_getrq)" 0 "export: block_getrq links 14 s after the last wait (none at $gone ms)"
stop_all_iodig
R=$(head -1 "$T/reader.out")
jq -c --argjson r "$R" 'select(.type == "request" and .pid == $r and .q2g_ns >= 1000000) | [.q2g_ns, .tags.held, .tags.processes[0].pid, .tags.processes[0].held, .tags.given, .tags.processes[0].given]' "$T/s.json" > "$T/waits"
n=$(wc -l < "$T/waits")
[ "$n" -ge 5 ] || die "only $n of the reader's 30 requests waited 1 ms for a tag: $(jq -c --argjson r "$R" 'select(.type == "request" and .pid == $r) | [.q2g_ns, .q2c_ns]' "$T/s.json" | head -5)"
# each: all the tags held when it began to wait were fio's, 3 or 4 of the
# 4 there are (one may just have been freed), never more than nr_requests
awk -v f="$F" -F'[][,]' '{ if ($4 != f || $5 != $3 || $3 < 3 || $3 > 4) { bad++; print } } END { exit bad > 0 }' "$T/waits" \
	|| die "tag holders against fio's pid $F and nr_requests 4: $(awk -v f="$F" -F'[][,]' '$4 != f || $5 != $3 || $3 < 3 || $3 > 4' "$T/waits" | head -5)"
ok "$n of the reader's requests waited for a tag; at each wait's start fio[$F] held all the tags, 3 or 4 of nr_requests 4: $(head -3 "$T/waits" | tr '\n' ' ')"
grep -E " $R +$s .* <- tags held by fio\[$F\] [34]" "$T/s.txt" > /dev/null \
	|| die "text: $(grep " $R " "$T/s.txt" | head -3)"
ok "text: $(grep -m1 -E " $R +$s .*<-" "$T/s.txt" | sed 's/^.*<- /<- /')"

# export --tag-holders: every wait for a tag (fio's own requests' too) had
# fio holding the most; the tags it held, summed, are at most nr_requests (4)
# a wait and at least 2.5 (the reader holds one now and then); no other name
W=$(awk -v d="disk=\"$s\"" '$1 ~ /^iodig_tag_waits_total/ && index($1, d) { print $2 }' "$T/metrics")
FW=$(awk -v d="disk=\"$s\"" '$1 ~ /^iodig_tag_holder_waits_total/ && index($1, d) && index($1, "holder=\"fio\"") { print $2 }' "$T/metrics")
FH=$(awk -v d="disk=\"$s\"" '$1 ~ /^iodig_tag_held_total/ && index($1, d) && index($1, "holder=\"fio\"") { print $2 }' "$T/metrics")
[ -n "$W" ] && [ "$W" -ge "$n" ] || die "export: tag waits '$W', fewer than the reader's $n: $(grep '^iodig_tag' "$T/metrics")"
assert_eq "$FW" "$W" "export: waits in which fio held the most tags, of all $W"
awk -v h="$FH" -v w="$W" 'BEGIN { exit !(h <= 4 * w && h >= 2.5 * w) }' || die "export: fio held $FH tags over $W waits"
others=$(grep -E '^iodig_tag_(holder_waits|held)_total' "$T/metrics" | grep -v -e 'holder="fio"' -e 'holder="python3"')
[ -z "$others" ] || die "export: other holders: $others"
grep -q '^iodig_lost_total{what="tag_holders_dropped"} 0$' "$T/metrics" || die "export: $(grep tag_holders_dropped "$T/metrics")"
ok "export --tag-holders: $W waits for a tag on $s, fio held the most in each, $FH tags in all"
