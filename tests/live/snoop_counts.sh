# snoop: one record per request, as many as /proc/diskstats completions,
# phases that add up, merges counted as the kernel counts them.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
# every op diskstats counts: reads, writes, discards, flushes
ios() { echo $(( $(diskstat $n 1) + $(diskstat $n 5) + $(diskstat $n 12) + $(diskstat $n 16) )); }
i0=$(ios); m0=$(( $(diskstat $n 2) + $(diskstat $n 6) ))
start_iodig "$T/s.json" snoop -d "$n" --json
fio --name=rw --filename="$L" --direct=1 --rw=randrw --bs=4k --size=64M --number_ios=3000 \
    --ioengine=libaio --iodepth=8 >/dev/null || die fio
# small sequential buffered writes, then fsync: the page cache writes back
# 4 KiB bios that merge into larger requests
dd if=/dev/urandom of="$L" bs=4k count=512 conv=fsync status=none || die dd
stop_iodig
i=$(( $(ios) - i0 )); m=$(( $(diskstat $n 2) + $(diskstat $n 6) - m0 ))
echo "  diskstats: $i requests, $m merges"
# skipped: completions the kernel ran no BPF program for (bench/counts.sh)
sk=$(jq -s '[.[] | select(.type == "summary")][0].skipped' "$T/s.json")
assert_eq "$(( $(jq -s '[.[] | select(.type == "request")] | length' "$T/s.json") + sk ))" "$i" "records + $sk skipped = diskstats completions"
assert_eq "$(( $(jq -s '[.[] | select(.type == "summary")][0].completed' "$T/s.json") + sk ))" "$i" "completed counter + skipped"
assert_eq "$(jq -s '[.[] | select(.type == "summary")][0].lost' "$T/s.json")" 0 "lost"
[ "$m" -gt 0 ] || die "the buffered writes were not merged (diskstats merges $m)"
assert_eq "$(jq -s '[.[] | select(.type == "summary")][0].merges' "$T/s.json")" "$m" "merges = diskstats merges"
# the flush machinery's own flush requests carry no bio: no Q, no submitter;
# every other request has one, but where its bio's slot held another live
# bio (a hash collision of two bio addresses, counted as untracked: seen in
# 2 runs of 47, one request each)
ut=$(jq -s '[.[] | select(.type == "summary")][0].untracked' "$T/s.json")
[ "$ut" -le 2 ] || die "untracked: $ut requests lost their submitter to a slot collision (2 at most expected)"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .op != "flush" and (.pid == null or .pid == 0))] | length' "$T/s.json")" "$ut" "records without a submitter = the untracked counter"
jq -e -s 'all(.[] | select(.type == "request");
	.partial or (.q2g_ns + .g2i_ns + .i2d_ns + .d2c_ns == .q2c_ns))' "$T/s.json" >/dev/null ||
	die "a complete record whose phases do not add up to Q2C"
ok "phases add up to Q2C on every complete record"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .op != "flush" and (.seen | startswith("-")))] | length' "$T/s.json")" "$ut" "records without Q (all started after tracing) = the untracked counter"
# partial: the flush requests (no bio), the empty preflush writes (never
# issued), and the untracked (issued, their Q lost)
assert_eq "$(jq -s '[.[] | select(.type == "summary")][0].partial' "$T/s.json")" \
	"$(jq -s '[.[] | select(.type == "request" and (.op == "flush" or (.issued | not) or .comm == null))] | length' "$T/s.json")" "partial = flushes + never issued + untracked"
f=$(jq -s '[.[] | select(.type == "request" and .comm == "fio")] | length' "$T/s.json")
[ "$f" -le 3000 ] && [ "$f" -ge $((3000 - ut)) ] || die "fio's requests with comm fio: $f, want 3000 (less $ut untracked at most)"
ok "fio's requests carry comm fio: $f of 3000 ($ut untracked)"
