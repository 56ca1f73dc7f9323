# iodig record, the flight recorder: on SIGUSR1 it writes exactly the
# requests kept (against /proc/diskstats), requests older than --keep are
# not kept, a trigger (p99 of Q2C over a second) fires on a frozen queue and
# its file holds the stall and the queue write that caused it, --max-mb
# bounds memory (what it drops is counted), and the files are recordings
# replay and report read.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); d=${L#/dev/}
reqs() { "$IODIG" replay --json "$1" | jq -s '[.[] | select(.type == "request")] | length'; }
start_iodig "$T/r.out" record -o "$T/fr" --keep 2 --trigger 'p99>10ms' -d "$d"
R=$IODIG_PID
# 1. SIGUSR1: what is kept, exactly
r0=$(diskstat "$d" 1)
dd if="$L" of=/dev/null bs=4k count=300 iflag=direct status=none
sleep 0.3; kill -USR1 "$R"
for i in $(seq 50); do [ -s "$T/fr-1.rec" ] && grep -q 'fr-1.rec' "$T/r.out.err" && break; sleep 0.1; done
# (checked at the end, beside the completions the kernel ran no program for:
# a CI run beside a competing fio kept 299 of 300)
got1=$(reqs "$T/fr-1.rec"); want1=$(( $(diskstat "$d" 1) - r0 ))
grep -q "fr-1.rec: $got1 records over .* (SIGUSR1)" "$T/r.out.err" || die "said: $(cat "$T/r.out.err")"
# 2. --keep 2: what is older than 2 s is gone
dd if="$L" of=/dev/null bs=4k count=100 iflag=direct status=none
sleep 2.5
dd if="$L" of=/dev/null bs=4k count=50 iflag=direct status=none
sleep 0.3; kill -USR1 "$R"
for i in $(seq 50); do grep -q 'fr-2.rec' "$T/r.out.err" && break; sleep 0.1; done
got2=$(reqs "$T/fr-2.rec")
# 3. the trigger: reads at 100/s while the elevator is switched 3 times
# (each switch stalls the reads that arrive while the queue is frozen: a few
# in a hundred, over 1% of a second)
fio --name=w --filename="$L" --direct=1 --rw=randread --bs=4k --size=32M --ioengine=libaio --iodepth=16 \
	--rate_iops=100 --time_based --runtime=2 >/dev/null & F=$!
sleep 0.5; flip_scheduler "$L" 3 "$T/flip.pid"
wait $F || die fio
for i in $(seq 30); do grep -q 'fr-3.rec' "$T/r.out.err" && break; sleep 0.1; done
grep -qE "fr-3.rec: [0-9]+ records over .* \(Q2C p99 [0-9.]+ms > 10.00ms\)" "$T/r.out.err" || die "no trigger: $(cat "$T/r.out.err")"
"$IODIG" replay --json "$T/fr-3.rec" > "$T/fr-3.json" || die "replay"
jq -s -e '([.[] | select(.type == "request") | .q2g_ns] | max) > 10000000 and ([.[] | select(.type == "queue_write" and .attr == "scheduler")] | length) >= 1' "$T/fr-3.json" >/dev/null \
	|| die "the triggered file: $(jq -s -c '[([.[] | select(.type == "request") | .q2g_ns] | max), ([.[] | select(.type == "queue_write")] | length)]' "$T/fr-3.json")"
ok "trigger p99>10ms fired on the frozen queue: fr-3.rec holds a Q2G stall over 10 ms and the scheduler write"
"$IODIG" report "$T/fr-3.rec" -o "$T/fr-3.html" 2>/dev/null || die "report of a flight recording"
grep -q "queue/scheduler" "$T/fr-3.html" || die "the report does not name the writer"
ok "report of the flight recording names the scheduler writer"
stop_iodig
sk=$(sed -n 's/.* \(-\{0,1\}[0-9]*\) skipped (the kernel.*/\1/p' "$T/r.out.err")
assert_seen "$got1" "$sk" "$want1" "SIGUSR1: the requests in fr-1.rec = /proc/diskstats' reads (300)"
assert_seen "$got2" "$sk" 50 "--keep 2: only the last 50 reads (the 100 before are 2.5 s old)"
# the switches can fall in two seconds: the trigger fires in each, and each
# file starts where the last one ended
n=$(sed -n 's/.*: \([0-9]*\) recordings written.*/\1/p' "$T/r.out.err")
[ "$n" = 3 ] || [ "$n" = 4 ] || die "summary: $(tail -2 "$T/r.out.err")"
[ "$n" = 3 ] || [ "$(( $(reqs "$T/fr-3.rec") + $(reqs "$T/fr-4.rec") ))" -le 300 ] || die "fr-3 and fr-4 overlap"
ok "Ctrl-C: the summary says $n recordings written (the trigger fired in each second the stalls fell in)"
# 4. --max-mb 1: memory bounded, what it drops counted
start_iodig "$T/m.out" record -o "$T/mm" --max-mb 1 -d "$d"
rss0=$(awk '/^Rss:/ {print $2}' /proc/$IODIG_PID/smaps_rollup)	# (exact: VmRSS is per-CPU counts, summed late)
fio --name=w --filename="$L" --direct=1 --rw=randread --bs=4k --size=32M --ioengine=libaio --iodepth=8 \
	--rate_iops=20000 --io_size=81920000 --norandommap >/dev/null || die fio  # 20000 reads
sleep 0.3; rss1=$(awk '/^Rss:/ {print $2}' /proc/$IODIG_PID/smaps_rollup); kill -USR1 "$IODIG_PID"
for i in $(seq 50); do grep -q 'mm-1.rec' "$T/m.out.err" && break; sleep 0.1; done
stop_iodig
# the records kept are the RSS it gained: 1 MiB, and 256 KiB of the rest
[ $((rss1 - rss0)) -le 1280 ] || die "--max-mb 1: RSS grew by $((rss1 - rss0)) kB ($rss0 kB when ready, $rss1 kB full)"
ok "--max-mb 1: RSS $rss0 kB when ready, $rss1 kB once full (+$((rss1 - rss0)) kB)"
n=$(reqs "$T/mm-1.rec")
dropped=$(sed -n 's/.* \([0-9]*\) dropped for room.*/\1/p' "$T/m.out.err")
lost=$(sed -n 's/.* \([0-9]*\) lost (ring buffer full).*/\1/p' "$T/m.out.err")
# the kernel may run no program for a completion (skipped.h), said too
sk=$(sed -n 's/.* \(-\{0,1\}[0-9]*\) skipped (the kernel.*/\1/p' "$T/m.out.err")
# (measured: a few low at worst, even negative: assert_seen in lib.sh; high,
# 3 and 8 of 20000 in CI runs, one beside a competing fio: at most 1 in 1000)
[ -n "$sk" ] && [ "$sk" -ge -8 ] && [ "$sk" -le 20 ] || die "--max-mb 1: skipped '$sk': $(tail -1 "$T/m.out.err")"
assert_eq "$lost" 0 "records lost from the ring buffer at 20000 requests a second"
[ "$n" -lt 20000 ] && [ "$n" -gt 1000 ] && [ "$(stat -c %s "$T/mm-1.rec")" -le $((1100 * 1024)) ] && [ $((n + dropped + sk)) -ge 20000 ] \
	|| die "--max-mb 1: $n requests kept, $(stat -c %s "$T/mm-1.rec") bytes, $dropped dropped, $sk skipped"
ok "--max-mb 1: $n of 20000 requests kept ($(stat -c %s "$T/mm-1.rec") bytes written), $dropped records dropped for room and said, $sk skipped (kept + dropped + skipped >= 20000)"
"$IODIG" record 2>"$T/e"; assert_eq "$?" 2 "record without -o: a usage error"
"$IODIG" record -o "$T/x" --trigger 'p99 20' 2>"$T/e"; assert_eq "$?" 2 "a malformed trigger: a usage error"
# 5. a restart goes on from the highest PREFIX-N.rec (mm-1.rec stays), and
# --max-files 2 keeps the newest two: a service's disk use is bounded
start_iodig "$T/f.out" record -o "$T/mm" --max-files 2 -d "$d"
for k in 2 3 4; do
	dd if="$L" of=/dev/null bs=4k count=10 iflag=direct status=none
	kill -USR1 "$IODIG_PID"
	for i in $(seq 50); do grep -q "mm-$k.rec" "$T/f.out.err" && break; sleep 0.1; done
done
stop_iodig
assert_eq "$(cd "$T" && echo mm-*.rec)" "mm-3.rec mm-4.rec" "--max-files 2 after a restart: the files left"
assert_eq "$(reqs "$T/mm-4.rec")" 10 "mm-4.rec: the last 10 reads"
# 6. a PREFIX without a directory part: the directory is the current one
# (--max-files removed ".rel-1.rec", never there, and left rel-1.rec)
mkdir "$T/cwd"
(cd "$T/cwd" && start_iodig "$T/c.out" record -o rel --max-files 1 -d "$d" &&
	for k in 1 2; do
		dd if="$L" of=/dev/null bs=4k count=10 iflag=direct status=none
		kill -USR1 "$IODIG_PID"
		for i in $(seq 50); do grep -q "rel-$k.rec" "$T/c.out.err" && break; sleep 0.1; done
	done && stop_iodig) || die "record -o rel"
assert_eq "$(cd "$T/cwd" && echo *.rec .*.rec)" "rel-2.rec .*.rec" "--max-files 1, PREFIX in the current directory: the newest left"
# 7. a PREFIX whose directory is missing is said at the start (it recorded
# until the incident, then could not write)
"$IODIG" record -o "$T/no/dir/r" 2>"$T/e"; rc=$?
assert_eq "$rc $(cat "$T/e")" "1 iodig record: writing recordings: $T/no/dir/: No such file or directory" "-o into a missing directory"
