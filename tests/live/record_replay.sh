# slow|snoop --record FILE, then iodig replay FILE: the same output, byte for
# byte (text and JSON, summary included).  The recording is on disk while
# the run goes on, and bad recordings get one clear line.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 128); n=${L#/dev/}
start_iodig "$T/slow.txt" slow 0 -d "$n" --record "$T/slow.rec"
start_iodig "$T/snoop.json" snoop -d "$n" --json --record "$T/snoop.rec"
# one request, then the recording must already hold it (written within a drain)
dd if="$L" of=/dev/null bs=4k count=1 iflag=direct status=none
sleep 1
"$IODIG" replay --json "$T/snoop.rec" > "$T/partial.json" 2>"$T/partial.err"; rc=$?
assert_eq "$rc" 1 "replay of a recording still being written: exit status (no summary yet)"
assert_eq "$(jq -s '[.[] | select(.type == "request")] | length' "$T/partial.json")" 1 "the request 1 s after it completed, in the recording"
grep -q "without a summary" "$T/partial.err" || die "partial: $(cat "$T/partial.err")"
# a load with merges, and queue writes that stall requests (named in slow)
stall_load "$L" 2000
stop_all_iodig
"$IODIG" replay --json "$T/snoop.rec" > "$T/snoop.replay.json" 2>"$T/err" || die "replay --json: $(cat "$T/err")"
cmp "$T/snoop.json" "$T/snoop.replay.json" || die "snoop --json and its replay differ"
ok "snoop --json: replay identical, $(wc -l < "$T/snoop.json") lines"
"$IODIG" replay "$T/slow.rec" > "$T/slow.replay.txt" 2>"$T/slow.replay.err" || die "replay: $(cat "$T/slow.replay.err")"
cmp "$T/slow.txt" "$T/slow.replay.txt" || die "slow and its replay differ: $(diff "$T/slow.txt" "$T/slow.replay.txt" | head -5)"
grep -v '^Tracing' "$T/slow.txt.err" > "$T/live.sum"
cmp "$T/live.sum" "$T/slow.replay.err" || die "summaries differ: $(cat "$T/live.sum" "$T/slow.replay.err")"
grep -q "queue write" "$T/slow.txt" || die "no queue write in the slow run: $(head "$T/slow.txt")"
ok "slow text: replay identical, $(wc -l < "$T/slow.txt") lines and the summary, queue writes included"

# --perfetto: a trace-event JSON; each request one async slice on its disk's
# track (its phases nested) and one on its submitter's, lasting its Q2C
"$IODIG" replay --perfetto "$T/trace.json" "$T/snoop.rec" || die "replay --perfetto"
python3 - "$T/trace.json" "$T/snoop.json" <<'PY' || die "perfetto trace"
import json, sys
t = json.load(open(sys.argv[1]))
reqs = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
reqs = [r for r in reqs if r.get("type") == "request"]
ev = t["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M"}
phases = {"Q2G", "G2I", "I2D", "D2C"}
b = {}
dur = {"disk": [], "proc": []}
for e in ev:
    if e["ph"] == "b" and e["name"] not in phases:
        b[e["id"]] = e
    elif e["ph"] == "e" and e["name"] not in phases:
        s = b.pop(e["id"])
        assert s["pid"] == e["pid"] and s["name"] == e["name"], (s, e)
        dur["disk" if names[e["pid"]].startswith("disk ") else "proc"].append(round((e["ts"] - s["ts"]) * 1000))
assert not b, "slices left open: %d" % len(b)
from collections import Counter
want = Counter(r["q2c_ns"] for r in reqs if r["q2c_ns"] is not None)
assert sum(want.values()) > len(reqs) / 2, "few whole requests"
for k in ("disk", "proc"):
    got = Counter(dur[k])
    assert sum(got.values()) == len(reqs), (k, sum(got.values()), len(reqs))
    assert not (want - got), (k, list((want - got).items())[:5])
nested = sum(1 for e in ev if e["ph"] == "b" and e["name"] in phases)
assert nested >= sum(want.values()), nested
print("  ok: --perfetto: %d requests, each one slice on its disk's and one on its submitter's track lasting its Q2C, %d phase slices nested" % (len(reqs), nested))
PY

# bad recordings
"$IODIG" replay /etc/passwd >/dev/null 2>"$T/err"; assert_eq $? 1 "replay of a file that is no recording"
grep -q "not an iodig recording" "$T/err" || die "$(cat "$T/err")"
"$IODIG" replay "$T/nope.rec" >/dev/null 2>"$T/err"; assert_eq $? 1 "replay of a missing file"
head -c $(( $(stat -c %s "$T/snoop.rec") - 10 )) "$T/snoop.rec" > "$T/cut.rec"
"$IODIG" replay --json "$T/cut.rec" > "$T/cut.json" 2>"$T/err"; assert_eq $? 1 "replay of a recording cut short"
grep -q "cut short at byte" "$T/err" || die "$(cat "$T/err")"
assert_eq "$(wc -l < "$T/cut.json")" "$(( $(wc -l < "$T/snoop.json") - 1 ))" "what a cut recording holds is still printed"
"$IODIG" report "$T/cut.rec" -o "$T/cut.html" 2>"$T/err"; assert_eq $? 1 "report of a recording cut short: the same exit as replay's"
grep -q "cut short at byte" "$T/err" && [ -s "$T/cut.html" ] || die "report of a cut recording: $(cat "$T/err")"
# damage: every frame carries a crc32, so a byte changed anywhere is refused
# by every reader with the offset of its frame (replay, --perfetto, report),
# never printed as if good.  20 copies, each with 5 bytes flipped at random.
python3 - "$T/snoop.rec" "$T/flip" <<'PY'
import random, sys
data = open(sys.argv[1], "rb").read()
rnd = random.Random(7)
for i in range(20):
    b = bytearray(data)
    for _ in range(5):
        k = rnd.randrange(len(b))
        b[k] ^= 1 << rnd.randrange(8)
    open("%s.%d.rec" % (sys.argv[2], i), "wb").write(bytes(b))
PY
passed=0
for i in $(seq 0 19); do
	f="$T/flip.$i.rec"
	"$IODIG" replay --json "$f" > /dev/null 2>"$T/e.r"; r=$?
	"$IODIG" replay "$f" --perfetto "$T/f.json" > /dev/null 2>"$T/e.p"; pf=$?
	"$IODIG" report "$f" -o "$T/f.html" 2>"$T/e.h"; h=$?
	[ "$r" = 1 ] && [ "$pf" = 1 ] && [ "$h" = 1 ] || die "flipped copy $i: replay $r, --perfetto $pf, report $h: $(cat "$T/e.r" "$T/e.h")"
	grep -qE "damaged at byte|not an iodig recording|cut short at byte" "$T/e.r" || die "flipped copy $i: $(cat "$T/e.r")"
	passed=$((passed + 1))
done
assert_eq "$passed" 20 "copies with 5 bytes flipped, refused by replay, --perfetto and report (exit 1, the offset named)"
"$IODIG" snoop --record "$T/no/dir/x.rec" >/dev/null 2>"$T/err"; assert_eq $? 1 "--record into a missing directory"
grep -q "writing the recording" "$T/err" || die "$(cat "$T/err")"
