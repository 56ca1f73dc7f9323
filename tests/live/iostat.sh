# iodig iostat beside iostat -x (Debian's sysstat), over the same window: a
# fio job that runs wholly inside both tools' one interval, so both read the
# same /proc/diskstats deltas; the columns agree within 1% (or iostat's two
# printed decimals); the BPF counts equal diskstats'; the BPF p99 equals
# iodig lat's for the same requests.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v iostat >/dev/null || skip "needs iostat (sysstat)"
L=$(loopdev 64); n=${L#/dev/}
start_iodig "$T/io.json" iostat -d "$n" --json 4 1
iostat -x -y -d "$n" -o JSON 4 1 > "$T/sys.json" & J=$!
sleep 0.7
fio --name=x --filename="$L" --direct=1 --rw=randrw --bs=4k --size=32M --number_ios=3000 --ioengine=psync >/dev/null || die fio
wait $J || die "iostat -x failed"; wait "$IODIG_PID" || die "iodig iostat failed"; PIDS=()
python3 - "$T/io.json" "$T/sys.json" <<'PY' || die "iodig iostat and iostat -x differ"
import json, sys
me = [json.loads(l) for l in open(sys.argv[1]) if '"iostat"' in l][0]
ref = json.load(open(sys.argv[2]))["sysstat"]["hosts"][0]["statistics"][0]["disk"][0]
pairs = [("r_s", "r/s"), ("w_s", "w/s"), ("rkB_s", "rkB/s"), ("wkB_s", "wkB/s"), ("rrqm_s", "rrqm/s"),
         ("wrqm_s", "wrqm/s"), ("r_await", "r_await"), ("w_await", "w_await"), ("aqu_sz", "aqu-sz"), ("util", "util")]
bad = [(a, me[a], ref[b]) for a, b in pairs if abs(me[a] - ref[b]) > max(0.01 * abs(ref[b]), 0.006)]
print("  ok: " + ", ".join("%s %.3f ~ %s" % (a, me[a], ref[b]) for a, b in pairs[:4] + pairs[6:8]))
assert not bad, bad
assert me["reads"] + me["writes"] == 3000 and me["bpf_reads"] == me["reads"] and me["bpf_writes"] == me["writes"], me
print("  ok: 3000 requests: diskstats %d reads %d writes = BPF's" % (me["reads"], me["writes"]))
PY
# the p99 of reads: the same requests through lat -Q (allocation to completion)
start_iodig "$T/io2.json" iostat -d "$n" --json 4 1
start_iodig "$T/lat.json" lat -Q -d "$n" --json
sleep 0.7
fio --name=y --filename="$L" --direct=1 --rw=randread --bs=4k --size=32M --number_ios=2000 --ioengine=psync >/dev/null || die fio
wait "${PIDS[0]}"; PIDS=("${PIDS[1]}")
stop_iodig
# Both programs run on the same completion, one after the other, each
# reading the clock itself: the later one sees every request a little
# longer (seen: one 2 us bucket at 50 us), so the p99s agree within a
# bucket's width (1/32) and the one program's run time, not to the ns.
read -r c1 p1 <<<"$(jq -s -r '[.[] | select(.type == "iostat")][0] | "\(.bpf_reads) \(.r_p99_ns)"' "$T/io2.json")"
read -r c2 p2 <<<"$(jq -s -r '[.[] | select(.type == "hist")] | "\(map(.count) | add) \(.[0].p99_ns)"' "$T/lat.json")"
assert_eq "$c1" "$c2" "reads: iodig iostat = iodig lat -Q"
# 5% and 3 us: at 20 us a request the other program's run time on a busy
# CI machine is two buckets (seen: 18943 against 20991 ns)
python3 -c "import sys; a, b = $p1, $p2; sys.exit(abs(a - b) > 0.05 * b + 3000)" || die "read p99: iostat $p1 ns, lat -Q $p2 ns"
ok "read p99: iodig iostat $p1 ns, iodig lat -Q $p2 ns (within 5% and one program's run, 3 us)"
