# iodig report: a recording of slow 0 (every request, queue writes watched) made into one HTML page, opened by
# headless Chromium (Debian's): no console error, the heatmap's cells (their
# data-count, read from the DOM Chromium built) add up to the disk's
# requests by /proc/diskstats (less what iodig measured as skipped), the slowest request of a frozen queue names
# its writer, and the screenshot is not blank.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v chromium >/dev/null || skip "needs chromium (Debian package chromium)"
L=$(loopdev 128); d=${L#/dev/}
total() { awk -v d="$1" '$3 == d { print $4 + $8 + $15 + $19 }' /proc/diskstats; }
k0=$(total "$d")
start_iodig "$T/slow.out" slow 0 -d "$d" --record "$T/r.rec"
# reads and writes while a shell switches the elevator 4 times: requests
# stall in Q2G for milliseconds, longer than any device time here
fio --name=w --filename="$L" --direct=1 --rw=randrw --bs=4k --size=100M --ioengine=libaio --iodepth=4 \
	--rate_iops=1000 --time_based --runtime=2 >/dev/null & F=$!
sleep 0.3; flip_scheduler "$L" 4 "$T/flip.pid"; wait $F || die fio
settle "$L"
stop_iodig
# the kernel's count of the disk's requests over the recording, less those
# the summary says the kernel ran no program for (measured: skipped.h)
K=$(( $(total "$d") - k0 ))
sk=$(sed -n 's/.* \(-\{0,1\}[0-9]*\) skipped (completed.*/\1/p' "$T/slow.out.err")
[ -n "$sk" ] && [ "$sk" -ge 0 ] && [ $((sk * 1000)) -le "$K" ] || die "skipped '$sk' of $K: $(tail -2 "$T/slow.out.err")"
"$IODIG" replay --json "$T/r.rec" > "$T/replay.json" || die "replay"
N=$(jq -s '[.[] | select(.type == "request")] | length' "$T/replay.json")
[ "$N" -gt 1000 ] || die "only $N requests recorded"
"$IODIG" report "$T/r.rec" -o "$T/report.html" 2>"$T/report.err" || die "report: $(cat "$T/report.err")"
grep -q "iodig report: $N requests" "$T/report.err" || die "report said: $(cat "$T/report.err")"
ok "report of $N requests written"

chrome() {	# ARGS...: headless Chromium, as the machine's probe starts it
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium" --enable-logging=stderr --v=0 "$@" 2>>"$T/chromium.log"
}
chrome --dump-dom "file://$T/report.html" > "$T/dom.html" || die "chromium: $(tail -3 "$T/chromium.log")"
chrome --window-size=1400,1000 --screenshot="$T/report.png" "file://$T/report.html" >/dev/null || die "chromium screenshot"
grep -E 'CONSOLE|Uncaught' "$T/chromium.log" && die "console messages above"
ok "Chromium loaded the page and took a screenshot, no console message"
assert_eq "$N" "$((K - sk))" "requests in the recording = /proc/diskstats' $K less $sk skipped"
/usr/bin/python3 - "$T/dom.html" "$((K - sk))" "$T/report.png" <<'PY' || die "the page"
import sys
from html.parser import HTMLParser
from PIL import Image

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.ids, self.rows, self.table, self.text = 0, set(), {}, None, []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "rect" and a.get("class") == "cell":
            self.cells += int(a["data-count"])
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table:
            self.rows[self.table] = self.rows.get(self.table, 0) + 1
    def handle_data(self, data):
        if self.table == "slowest":
            self.text.append(data)
    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None

p = P()
p.feed(open(sys.argv[1]).read())
n = int(sys.argv[2])
assert p.cells == n, (p.cells, n)
print("  ok: heatmap cells in the DOM add up to %d = the disk's requests by /proc/diskstats, less skipped" % p.cells)
for i in ("heatmap", "percentiles", "phases", "procs", "slowest", "overhead"):
    assert i in p.ids, i
assert p.rows["slowest"] == 51, p.rows
slow = " ".join(p.text)
assert "wrote" in slow and "queue/scheduler" in slow and "Q2G" in slow, slow[:800]
print("  ok: every section there; the slowest requests stalled in Q2G and name the scheduler writer")
im = Image.open(sys.argv[3]).convert("RGB")
px = list(im.getdata())
coloured = sum(1 for r, g, b in px if abs(r - g) > 40 or abs(g - b) > 40)
assert coloured > len(px) * 0.01, coloured
print("  ok: the screenshot has %d coloured pixels of %d" % (coloured, len(px)))
PY
"$IODIG" report /etc/passwd -o "$T/x.html" 2>"$T/e"; assert_eq "$?" 1 "report of a file that is no recording: exit 1"
"$IODIG" report "$T/r.rec" 2>"$T/e"; assert_eq "$?" 2 "report without -o: a usage error"
# progress on a terminal only: under a pseudo-terminal (script(1)) a
# progress line, erased at the end; into a file, none
script -qc "'$IODIG' report '$T/r.rec' -o '$T/tty.html'" /dev/null > "$T/tty.out" || die "report under a tty"
grep -q "reading $T/r.rec: *[0-9]*%" "$T/tty.out" && grep -q $'\e\[K' "$T/tty.out" || die "no progress on a tty: $(od -c "$T/tty.out" | head -3)"
grep -q "reading" "$T/report.err" && die "progress written to a file: $(cat "$T/report.err")"
ok "progress shown and erased on a terminal, not in a file"
