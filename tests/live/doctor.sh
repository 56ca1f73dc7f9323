# iodig doctor on faults the test makes, each finding held to the fault's
# own record, never to another iodig command (the request findings with
# --no-calls: a busy machine's CPU starvation of fio's own calls would be a
# true finding, ranked by its cost; doctor_calls.sh tests the calls):
#  - quiet: 2000 reads of a fast loop device: nothing wrong, and the
#    requests doctor judged = /proc/diskstats' reads;
#  - a queue frozen: a shell switches a loop device's scheduler 12 times
#    under fio: ranked first, the shell's pid, the attribute, its 12 writes;
#  - tag starvation and a slow device at once: a FUSE-backed device (each
#    read 5 ms) with nr_requests 4 flooded by 64 fio threads, and a reader:
#    for the reader, tag starvation (fio's pid the holder) and the slow
#    device, in the order the reader's clock and the device's known 20 ms a
#    read give (tags first, unless the machine is busy); their costs (Q2G
#    and D2C summed) are 85-100% of the reader's own time in its reads;
#  - lost events: a 4 KiB ring buffer, doctor stopped for a second under
#    load: ranked first;
#  - dirty throttling: a writer held to a 1 MiB dirty limit: its pid, and
#    its time asleep = the kernel's trace of writeback:balance_dirty_pages.
. "$(dirname "$0")/../lib.sh"
need_root_bpf

# ---- quiet ----
L=$(loopdev 128); l=${L#/dev/}
settle "$L"	# a new device's first reads (a probe) are not the test's
# page-cache thrash is judged machine-wide (the kernel's refault count): if
# another process refaulted 1 MiB meanwhile, that finding is true, so the
# quiet run is made again, up to 5 times 2 s apart, and said (a CI run's
# other lane, booting VMs, refaulted 855 and then 307 pages in two tries)
refaults() { awk '$1 == "workingset_refault_file" { print $2 }' /proc/vmstat; }
for try in 1 2 3 4 5; do
	r0=$(diskstat "$l" 1); f0=$(refaults)
	start_iodig "$T/q.json" doctor -d "$l" --no-calls --json 3
	fio --name=q --filename="$L" --direct=1 --rw=randread --bs=4k --size=100M --number_ios=2000 \
	    --ioengine=psync > /dev/null || die fio
	end_iodig
	r1=$(diskstat "$l" 1); f1=$(refaults)
	[ $((f1 - f0)) -lt 256 ] && break
	echo "  (the machine refaulted $((f1 - f0)) file pages during the quiet run: again)"
	sleep 2
done
assert_eq "$(jq -s length "$T/q.json")" 1 "findings of a quiet disk"
if [ $((f1 - f0)) -ge 256 ]; then
	# five runs beside another's thrash: then thrash is the true finding
	assert_eq "$(doctor_kind "$T/q.json" 1)" cache_thrash "the quiet disk's finding, with $((f1 - f0)) pages refaulted meanwhile"
else
	assert_eq "$(doctor_kind "$T/q.json" 1)" nothing_wrong "the quiet disk's finding"
	# every read judged, or counted lost by the engine itself (a completion the
	# kernel ran no program for: skipped, as lat counts it)
	judged=$(doctor_of "$T/q.json" nothing_wrong '.title' | sed -n 's/^nothing wrong found in \([0-9]*\) requests.*/\1/p')
	lost=$(doctor_of "$T/q.json" nothing_wrong '.evidence | join("; ")' | sed -n 's/.*events lost: \([0-9]*\) .*/\1/p')
	[ -n "$judged" ] && [ -n "$lost" ] && [ "$judged" -le $((r1 - r0)) ] && [ $((judged + lost)) -ge $((r1 - r0)) ] \
		|| die "requests judged $judged, lost $lost, against diskstats' $((r1 - r0)) reads"
	ok "requests judged $judged + lost $lost, against diskstats' $((r1 - r0)) reads"
fi

# ---- a queue frozen by its scheduler's writer ----
start_iodig "$T/f.json" doctor -d "$l" --no-calls --json --record "$T/f.rec" 4
fio --name=w --filename="$L" --direct=1 --rw=randwrite --bs=4k --size=64M --time_based \
    --runtime=3 --ioengine=libaio --iodepth=4 > /dev/null &
F=$!
sleep 0.5
flip_scheduler "$L" 6 "$T/writer"
wait $F || die fio
end_iodig
w=$(cat "$T/writer")
assert_eq "$(doctor_kind "$T/f.json" 1)" queue_frozen "the first finding with the scheduler switched"
assert_eq "$(doctor_of "$T/f.json" queue_frozen '"\(.culprit.pid) \(.culprit.attr) \(.disk)"')" "$w scheduler $l" \
	"the writer: the switching shell"
doctor_of "$T/f.json" queue_frozen '.evidence | join("; ")' | grep -q "wrote queue/scheduler 12 times" \
	|| die "the shell's 12 writes: $(doctor_of "$T/f.json" queue_frozen '.evidence | join("; ")')"
ok "$(doctor_of "$T/f.json" queue_frozen .title)"
# offline: the recording it kept, judged again
"$IODIG" doctor --from "$T/f.rec" --json > "$T/ff.json" || die "doctor --from"
assert_eq "$(doctor_kind "$T/ff.json" 1) $(doctor_of "$T/ff.json" queue_frozen '"\(.culprit.pid) \(.culprit.attr)"')" \
	"queue_frozen $w scheduler" "--from the recording: the first finding and its writer"
doctor_of "$T/ff.json" queue_frozen '.evidence | join("; ")' | grep -q "wrote queue/scheduler 12 times" \
	|| die "--from: the shell's 12 writes: $(doctor_of "$T/ff.json" queue_frozen '.evidence | join("; ")')"

# ---- tag starvation and a slow device, at once ----
# 64 fio threads (one process) each block in io_submit for a tag; a reader's
# 30 O_DIRECT reads (whyload direct: each timed on its own clock) wait
# behind them for a tag (Q2G), then 20 ms in the device (4 reads queued in
# the FUSE file at 5 ms each).  The reads are 10 ms apart: a reader that
# submits again the instant its read ends takes the tag it just freed
# before a woken waiter runs, and waits for none; fio runs at nice -10, so
# that its woken threads take the tags first on a busy machine too
S=$(slowdev 5 64) || exit
s=${S#/dev/}
q=/sys/block/$s/queue
defer "echo $(cat $q/nr_requests) > $q/nr_requests"
echo 4 > $q/nr_requests || die "nr_requests 4 refused"
nice -n -10 fio --name=flood --thread --numjobs=64 --filename="$S" --readonly --direct=1 --ioengine=libaio \
    --iodepth=2 --rw=randread --bs=4k --size=32M --time_based --runtime=30 > "$T/fio.out" 2>&1 &
F=$!; defer "kill $F 2>/dev/null"
load rd direct "$S" 30 10
R=$(cat "$T/pid.rd")
# beside it, a disk whose grants go to the same ring, written all along:
# no wait of the reader loses its holders to that disk's requests (before
# per-disk arming they pushed them out: 17 of the 30 waits named)
W=$(loop_on_ring "$S"); w=${W#/dev/}
( while :; do dd if=/dev/zero of="$W" bs=4k count=500 oflag=direct 2>/dev/null; done ) & WR=$!
defer "kill $WR 2>/dev/null"
w0=$(diskstat "$w" 5)
sleep 1
start_iodig "$T/t.json" doctor -p "$R" --no-calls --json --html "$T/t.html" 120
touch "$T/go.rd"; wait $JOB_rd || die "whyload direct failed"
stop_iodig
kill $WR; wait $WR 2>/dev/null
kill $F; wait $F
w1=$(diskstat "$w" 5)
[ $((w1 - w0)) -ge 1000 ] || die "the writer on $w (the reader's ring) wrote $((w1 - w0)) requests, too few to test it"
ok "beside the reads, $((w1 - w0)) writes on $w, a disk on $s's ring of grants"
assert_eq "$(doctor_of "$T/t.json" tag_starvation '"\(.culprit.comm)[\(.culprit.pid)]"')" "fio[$F]" "the tags' holder"
# the reader's own clock: each read's wall time, summed
want=$(awk '{ s += $2 - $1 } END { printf "%.0f", s }' "$T/go.rd.clock")
got=$(jq -s '[.[] | select(.kind == "tag_starvation" or .kind == "slow_device") | .cost_ns] | add' "$T/t.json")
python3 - "$got" "$want" <<'PY' || die "Q2G of the tag waits + D2C = $got ns, the reader's own time in its reads $want ns"
import sys
got, want = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if 0.85 * want <= got <= want else 1)
PY
ok "the reader's tag waits + device time $got ns, its own time in its 30 reads $want ns"
# the order, from the reader's clock and the device's known service: 4 reads
# in the FUSE file at 5 ms each is at least 20 ms in the device a read, 600
# ms for 30, and with FUSE's and the loop worker's own time up to 25 (750);
# the rest of the reader's time waited for a tag.  On a busy machine the
# flood takes fewer tags ahead of the reader: then the order may turn.
# (With the device taken as 600 ms exactly, a CI run's 754 ms of tags was
# ordered first and doctor, measuring, put the device first.)
dev=600000000; devmax=750000000; tag=$((want - dev))
if [ $((want - devmax)) -gt $((devmax * 5 / 4)) ]; then order="tag_starvation slow_device"
elif [ "$tag" -lt $((dev * 4 / 5)) ]; then order="slow_device tag_starvation"
else order=""; fi
if [ -n "$order" ]; then
	assert_eq "$(doctor_kind "$T/t.json" 1) $(doctor_kind "$T/t.json" 2)" "$order" \
		"the order by the reader's clock (about $((tag / 1000000)) ms waiting for tags, $((dev / 1000000)) ms in the device)"
else
	ok "tags (about $(((want - devmax) / 1000000))-$((tag / 1000000)) ms) and device ($((dev / 1000000))-$((devmax / 1000000)) ms) too close to order by the reader's clock"
fi
grep -q 'class="finding" data-kind="tag_starvation" data-rank="[12]"' "$T/t.html" || die "--html: no findings on top"
ok "--html: the findings on top of the report"
# the page's own table of who held the tags: fio first, over no more waits
# than the reader's 30 reads
python3 - "$T/t.html" "$F" <<'PY' || die "--html: the tag holders' table: $(grep -o '<table id="tagholders">.*' "$T/t.html" | head -c 600)"
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.on = False; s.rows = []; s.cell = None
    def handle_starttag(s, t, a):
        if t == "table": s.on = dict(a).get("id") == "tagholders"
        elif s.on and t == "tr": s.rows.append([])
        elif s.on and t == "td": s.cell = ""
    def handle_endtag(s, t):
        if t == "table": s.on = False
        elif s.on and t == "td": s.rows[-1].append(s.cell); s.cell = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
p = P(); p.feed(open(sys.argv[1]).read())
rows = [r for r in p.rows if r]
print(rows[:2])
disk, pid, comm, waits = rows[0][:4]
sys.exit(0 if pid == sys.argv[2] and comm == "fio" and 1 <= int(waits) <= 30 else 1)
PY
ok "--html: fio[$F] heads the page's tag holders"

# ---- lost events ----
# a 4 KiB ring buffer, and doctor stopped (SIGSTOP) for a second of fio's
# three: what the kernel could not put in the buffer meanwhile is lost
start_iodig "$T/l.json" doctor -d "$l" --no-calls --json --buffer-size 4096 60
fio --name=l --filename="$L" --direct=1 --rw=randread --bs=4k --size=100M --time_based --runtime=3 \
    --ioengine=libaio --iodepth=4 > /dev/null & F=$!
sleep 1; kill -STOP "$IODIG_PID"; sleep 1; kill -CONT "$IODIG_PID"
wait $F || die fio
stop_iodig
assert_eq "$(doctor_kind "$T/l.json" 1)" lost_events "the first finding with a 4 KiB ring buffer, stopped for a second"
ok "$(doctor_of "$T/l.json" lost_events .title)"

# ---- dirty throttling ----
throttled_fs 96 150
start_iodig "$T/d.json" doctor -d "$a" --json 60
echo 1 > "$E/enable" || die "tracefs enable"
touch "$T/go"
wait $J || die "the writer failed"
echo 0 > "$E/enable"
stop_iodig
grep -q LOST "$I/trace" && die "tracefs lost events"
ms=$(awk -v p="-$P" 'index($1, p) == length($1) - length(p) + 1 && /balance_dirty_pages:/ {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "pause" && kv[2] > 0) s += kv[2] } }
	END { print s + 0 }' "$I/trace")
[ "$ms" -gt 0 ] || die "the writer was never paused: the fault was not made"
assert_eq "$(doctor_kind "$T/d.json" 1)" dirty_throttled "the first finding with a 1 MiB dirty limit"
assert_eq "$(doctor_of "$T/d.json" dirty_throttled '"\(.culprit.pid) \(.cost_ns)"')" "$P $((ms * 1000000))" \
	"the writer and its time asleep = the kernel's trace"
ok "$(doctor_of "$T/d.json" dirty_throttled .title)"
