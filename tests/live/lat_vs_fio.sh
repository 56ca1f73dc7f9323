# lat's p50 and p99 against fio's own completion-latency percentiles for the
# same run, on a device whose service time dominates: a loop device on a file
# of tests/helpers/slowfs.py, a FUSE filesystem whose reads each sleep 5 ms.
# iodig times issue to completion, a strict part of fio's clat (which adds
# the syscall, page pinning and the wake-up).  Stated tolerance: iodig's p50
# lies within [-8%, +5%] of fio's, its p99 within [-25%, +5%].  +5% covers
# iodig's 3.125% bucket bound and fio's own ~1.6% bucketing: iodig can never
# be above fio by more.  Below, fio adds its syscall path and wake-up: a few
# hundred microseconds at the median, and at the tail of 500 samples a few
# slow wake-ups on a loaded machine (seen: fio's p99 11% above iodig's, and
# in a clean-clone CI run 26%, 7.44 ms against 5.90, its p50 2% above).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(slowdev 5 64) || exit
n=${L#/dev/}
start_iodig "$T/p.json" lat -d "$n" --json
fio --name=p --filename="$L" --readonly --direct=1 --rw=randread --bs=4k --size=64M --number_ios=500 \
    --ioengine=psync --output-format=json > "$T/fio.json" || die fio
stop_iodig
assert_seen "$(jcount "$T/p.json" true)" "$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/p.json")" "$(jq '.jobs[0].read.total_ios' "$T/fio.json")" "requests = fio's I/Os"
for p in 50 99; do
	low=$([ $p = 50 ] && echo 0.08 || echo 0.25)
	got=$(jq -s "[.[] | select(.type == \"hist\")][0].p${p}_ns" "$T/p.json")
	want=$(jq ".jobs[0].read.clat_ns.percentile[\"$p.000000\"]" "$T/fio.json")
	python3 -c "import sys; g,w=$got,$want; sys.exit(0 if -$low*w <= g-w <= 0.05*w else 1)" ||
		die "p$p: iodig $got ns, fio $want ns: outside [-$low, +0.05]"
	ok "p$p: iodig $got ns, fio clat $want ns ($(python3 -c "print('%+.1f%%' % (($got-$want)*100/$want))"))"
done
