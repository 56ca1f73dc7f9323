# iodig stacks on a helper whose stacks are known (tests/helpers/stackload.c:
# main -> outer -> middle -> through (inlined into middle) -> inner, which
# reads a loop device with O_DIRECT):
# each frame named with its source line; without frame pointers, the stack
# said to be cut short; a stripped copy named from its separate debug file
# (found by build-id), run from a mount namespace the tracer cannot see and
# deleted once started; --folded; counts and bytes exact.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 64); d=${L#/dev/}
H="$TOP/build/helpers"
line=$(grep -n 'READ \*/' "$TOP/tests/helpers/stackload.c" | cut -d: -f1)

# 1. with and without frame pointers, side by side
start_iodig "$T/s.json" stacks -d "$d" --json
start_iodig "$T/s.folded" stacks -d "$d" --folded --svg "$T/s.svg"
"$H/stackload-fp" "$T/go" "$L" 50 > "$T/pid.fp" & J1=$!
"$H/stackload-nofp" "$T/go" "$L" 30 > "$T/pid.nofp" & J2=$!
for i in $(seq 50); do [ -s "$T/pid.fp" ] && [ -s "$T/pid.nofp" ] && break; sleep 0.05; done
touch "$T/go"; wait $J1 $J2 || die "stackload failed"
stop_all_iodig
FP=$(cat "$T/pid.fp"); NOFP=$(cat "$T/pid.nofp")
st() { jq -c "select(.type == \"stack\" and .pid == $2)" "$1"; }
assert_eq "$(st "$T/s.json" "$FP" | jq -c '[.count, .bytes, .disk]')" "[50,204800,\"$d\"]" "frame pointers: one stack, its 50 reads and bytes"
assert_eq "$(st "$T/s.json" "$FP" | jq -c '[.user[:5][].sym]')" '["inner","through","middle","outer","main"]' "user frames, innermost first"
tl=$(grep -n 'THROUGH \*/' "$TOP/tests/helpers/stackload.c" | cut -d: -f1); ml=$(grep -n 'MIDDLE \*/' "$TOP/tests/helpers/stackload.c" | cut -d: -f1)
st "$T/s.json" "$FP" | jq -e "(.user[1] | .inlined and (.where | endswith(\"stackload.c:$tl\"))) and (.user[2] | (.inlined | not) and (.where | endswith(\"stackload.c:$ml\")))" >/dev/null \
	|| die "inlined frame: $(st "$T/s.json" "$FP" | jq -c '.user[1:3]')"
ok "through, inlined into middle: its own frame (inlined, at its call of inner, line $tl), then middle at its call of through (line $ml)"
st "$T/s.json" "$FP" | jq -e ".user[0] | (.where | endswith(\"stackload.c:$line\")) and (.file | endswith(\"stackload.c\")) and .line == $line" >/dev/null \
	|| die "inner's line: $(st "$T/s.json" "$FP" | jq -c '.user[0]')"
ok "inner at stackload.c:$line, the read (where, and file and line apart)"
assert_eq "$(st "$T/s.json" "$FP" | jq .user_cut_short)" false "user_cut_short of a stack that reaches libc's start"
st "$T/s.json" "$FP" | jq -e '(.kernel[0].sym | startswith("submit_bio")) and any(.kernel[]; .sym == "blkdev_read_iter") and any(.kernel[]; .sym == "__x64_sys_pread64")' >/dev/null \
	|| die "kernel frames: $(st "$T/s.json" "$FP" | jq -c '[.kernel[].sym]')"
ok "kernel frames from submit_bio up to the pread64 system call, no BPF frames first"
assert_eq "$(st "$T/s.json" "$NOFP" | jq -c '[.count, .user[0].sym, .user_cut_short]')" '[30,"inner",true]' "no frame pointers: 30 reads, inner named, the stack said to be cut short"
grep -qE "^stackload-fp;(.*;)?main;outer;middle;through;inner;.*submit_bio[a-z_]*_\[k\] 50$" "$T/s.folded" || die "folded: $(cat "$T/s.folded")"
ok "--folded: stackload-fp;...;main;outer;middle;through;inner;...;submit_bio..._[k] 50"
# the flame graph: well-formed SVG; every frame a box whose count is the sum
# of the boxes above it (or more, where a stack ends there); the process
# boxes add up to the root
python3 - "$T/s.svg" "$FP" <<'PY' || die "flame graph: $(head -c 600 "$T/s.svg")"
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
gs = root.findall(".//s:g", ns)
boxes = [(int(g.get("data-x")), int(g.get("data-w")), int(g.get("data-d")), g.find("s:title", ns).text) for g in gs]
assert boxes[0][3].startswith("all (80 bios"), boxes[0]
by_depth = {}
for b in boxes:
    by_depth.setdefault(b[2], []).append(b)
assert sum(b[1] for b in by_depth[1]) == 80, by_depth[1]
names = {b[3].split(" ")[0]: b for b in boxes}
assert names["stackload-fp"][1] == 50 and names["stackload-nofp"][1] == 30, names.keys()
for d, bs in by_depth.items():
    for b in bs:
        above = [c for c in by_depth.get(d + 1, []) if b[0] <= c[0] < b[0] + b[1]]
        assert sum(c[1] for c in above) <= b[1], (b, above)
assert root.find("s:script", ns) is not None
PY
ok "--svg: a flame graph of 80 bios, 50 and 30 by process, each box at least the boxes above it"

# 2. stripped, its debug file under /usr/lib/debug/.build-id, run from a
# private tmpfs in its own mount namespace, deleted once it has started
id=$(readelf -n "$H/stackload-fp" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || die "no build-id in stackload-fp"
dbg="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
[ -e "$dbg" ] && die "$dbg exists already: not ours to replace"
mkdir -p "$(dirname "$dbg")"; defer "rm -f $dbg"
objcopy --only-keep-debug "$H/stackload-fp" "$dbg"
strip --strip-all -o "$T/stripped" "$H/stackload-fp"
[ -z "$(nm "$T/stripped" 2>/dev/null)" ] || die "the copy still has symbols"
mkdir "$T/ns"
start_iodig "$T/ns.json" stacks -d "$d" -U --json
unshare -m --propagation private sh -c "mount -t tmpfs none '$T/ns' && cp '$T/stripped' '$T/ns/sl' &&
	'$T/ns/sl' '$T/go2' '$L' 20 > '$T/pid.ns' & while [ ! -s '$T/pid.ns' ]; do sleep 0.02; done; rm '$T/ns/sl'; touch '$T/go2'; wait" \
	|| die "the namespaced run failed"
[ -e "$T/ns/sl" ] && die "the binary is visible outside its namespace"
stop_iodig
# named FILE PID N WHAT: PID's stack in FILE holds its N reads, every frame
# named, and inner at the read's line
named() {
	assert_eq "$(st "$1" "$2" | jq -c '[.count, [.user[:5][].sym]]')" "[$3,[\"inner\",\"through\",\"middle\",\"outer\",\"main\"]]" "$4"
	st "$1" "$2" | jq -e ".user[0].where | endswith(\"stackload.c:$line\")" >/dev/null || die "line: $(st "$1" "$2" | jq -c '.user[0]')"
	ok "and its line"
}
named "$T/ns.json" "$(cat "$T/pid.ns")" 20 "stripped, deleted, in another mount namespace: frames named from the build-id's debug file"

# 2c. processes that exit before the first stack scan (100 ms): named from
# the mappings the kernel reported as they were made (perf mmap2 records
# with build-ids); and a stripped copy deleted as soon as it exits, from the
# build-id's debug file.  Reads take well under a millisecond, so most runs
# are gone before a scan: at least 3 of 5 must have been named that way.
touch "$T/go7"
start_iodig "$T/short.json" stacks -d "$d" -U --json
for i in 1 2 3 4 5; do "$H/stackload-fp" "$T/go7" "$L" 4 now >> "$T/pid.short" || die "stackload failed"; done
stop_iodig
for p in $(cat "$T/pid.short"); do
	assert_eq "$(st "$T/short.json" "$p" | jq -c '[.count, [.user[:5][].sym], .user_cut_short]')" '[4,["inner","through","middle","outer","main"],false]' \
		"exited at once (pid $p): its 4 reads, every frame named"
done
jq -e 'select(.type == "summary") | .user_after_exit >= 3 and .user_unresolved == 0 and .mmap_lost == 0' "$T/short.json" >/dev/null \
	|| die "summary: $(jq -c 'select(.type == "summary")' "$T/short.json")"
ok "$(jq -r 'select(.type == "summary") | .user_after_exit' "$T/short.json") of 5 gone before their first scan, named from their recorded mappings; none unresolved"
cp "$T/stripped" "$T/sl-gone"
start_iodig "$T/gone.json" stacks -d "$d" -U --json
"$T/sl-gone" "$T/go7" "$L" 6 now > "$T/pid.gone"; rm "$T/sl-gone"
sleep 0.3
stop_iodig
named "$T/gone.json" "$(cat "$T/pid.gone")" 6 "stripped, exited and deleted before any scan: named from the build-id's debug file"

# 2b. JIT code, named by the process in /tmp/perf-PID.map
start_iodig "$T/jit.json" stacks -d "$d" -U --json
"$H/jitload" "$T/go4" "$L" 15 > "$T/pid.jit" & J=$!
for i in $(seq 50); do [ -s "$T/pid.jit" ] && break; sleep 0.05; done
touch "$T/go4"; wait $J || die "jitload failed"
stop_iodig
JP=$(cat "$T/pid.jit")
assert_eq "$(st "$T/jit.json" "$JP" | jq -c '[.count, [.user[:3][] | .sym], .user[0].where]')" '[15,["jitted_pread","jit_caller","main"],"[perf-map]"]' \
	"JIT code: named from /tmp/perf-PID.map, then its callers"

# 3. another event: a tracepoint by name, kernel stacks only
# (-p of a live process that does no I/O: nothing of dd's; of an exited
# one: an error, as every -p)
sleep 60 & S=$!; defer "kill $S 2>/dev/null"
start_iodig "$T/tp.json" stacks --tracepoint block:block_rq_issue -K -p "$S" --json
start_iodig "$T/tp2.json" stacks --tracepoint block:block_rq_issue -K --json
dd if="$L" of=/dev/null bs=4k count=10 iflag=direct status=none
stop_all_iodig
assert_eq "$(jq -s '[.[] | select(.type == "stack")] | length' "$T/tp.json")" 0 "-p of a process doing no I/O: nothing"
"$IODIG" stacks --tracepoint block:block_rq_issue -K -p "$FP" 2>"$T/e"; assert_eq "$?" 1 "-p of an exited process: exit 1"
grep -q "pid: $FP: no such process" "$T/e" || die "$(cat "$T/e")"
assert_eq "$(jq -s '[.[] | select(.type == "stack" and .comm == "dd" and any(.kernel[]; .sym == "blkdev_read_iter")) | .count] | add' "$T/tp2.json")" 10 "--tracepoint block:block_rq_issue: dd's 10 O_DIRECT reads (through blkdev_read_iter)"
jq -e 'select(.type == "summary") | .kstack_walked + .kstack_memo == .events and .kstack_memo > 0 and .kstack_differed == 0' "$T/tp2.json" >/dev/null \
	|| die "--tracepoint's memos: $(jq -c 'select(.type == "summary")' "$T/tp2.json")"
ok "and its kernel stacks from memos, but the first of each path ($(jq -c 'select(.type == "summary") | [.kstack_walked, .kstack_memo]' "$T/tp2.json"))"
"$IODIG" stacks --tracepoint nosuch_iodig_tp 2>"$T/e"; assert_eq "$?" 1 "a tracepoint that does not exist: exit 1"
"$IODIG" stacks -K -U 2>"$T/e"; assert_eq "$?" 2 "-K -U together: a usage error"
"$IODIG" stacks --kfunc nosuch_fn_iodig 2>"$T/e"; assert_eq "$?" 1 "--kfunc of no such function: exit 1"
grep -q "no such kernel function" "$T/e" || die "$(cat "$T/e")"
if [ ! -d /sys/bus/event_source/devices/kprobe ]; then	# this host: no kprobe PMU (and fentry refused)
	"$IODIG" stacks --kfunc vfs_read 2>"$T/e"; assert_eq "$?" 1 "--kfunc on a kernel without kprobes or fentry: exit 1"
	grep -q "neither kprobes .* nor fentry" "$T/e" || die "$(cat "$T/e")"
	ok "and it says which are missing (the VM test counts at submit_bio by fentry)"
fi

# 4. why -K -U: the stacks at each slow call's longest wait off CPU, on a
# device whose reads take 20 ms: the wait is the read's, in io_schedule,
# from inner()'s pread64
S=$(slowdev 20 16)
"$H/stackload-fp" "$T/go3" "$S" 5 > "$T/pid.w" & J=$!
for i in $(seq 50); do [ -s "$T/pid.w" ] && break; sleep 0.05; done
W=$(cat "$T/pid.w")
start_iodig "$T/why.json" why 5 -K -U -p "$W" --json
start_iodig "$T/why.txt" why 5 -K -U -p "$W"
touch "$T/go3"; wait $J || die "stackload failed"
stop_all_iodig
assert_eq "$(jq -s '[.[] | select(.type == "call" and .syscall == "pread64")] | length' "$T/why.json")" 5 "why: the 5 slow reads"
bad=$(jq -s '[.[] | select(.type == "call" and .syscall == "pread64") | select(.longest_wait.ns < .parts.block_io_ns * 0.9 or .longest_wait.ns > .wall_ns
	or ([.longest_wait.kernel[].sym] | index("io_schedule_timeout") == null or index("blkdev_read_iter") == null)
	or [.longest_wait.user[:5][].sym] != ["inner","through","middle","outer","main"] or .longest_wait.user_cut_short)] | length' "$T/why.json")
[ "$bad" = 0 ] || die "why -K -U: $(jq -c 'select(.type == "call" and .syscall == "pread64") | [.wall_ns, .parts.block_io_ns, .longest_wait.ns, [.longest_wait.user[:6][].sym], .longest_wait.user_cut_short, ([.longest_wait.kernel[].sym] | index("blkdev_read_iter"))]' "$T/why.json" | head -5)"
ok "why -K -U: each call's longest wait (>= 90% of its block I/O, <= its wall) in io_schedule_timeout under blkdev_read_iter, from inner < through < middle < outer < main"
grep -q "longest wait off CPU" "$T/why.txt" && grep -q "inner+0x[0-9a-f]* \[stackload-fp\] .*stackload.c:$line" "$T/why.txt" || die "why text: $(head -30 "$T/why.txt")"
ok "why -K -U text: the wait and inner's line"

# 5. slow and snoop -K -U: each request with its submitter's stacks at Q
# (slow on the 20 ms device, watched; snoop on the loop device, followed).
# Recorded, the stacks go into the recording as named: replayed once the
# helper has exited, slow's text and snoop's JSON come back byte for byte.
"$H/stackload-fp" "$T/go5" "$S" 4 > "$T/pid.s5" & J1=$!
"$H/stackload-fp" "$T/go5" "$L" 10 > "$T/pid.n5" & J2=$!
for i in $(seq 50); do [ -s "$T/pid.s5" ] && [ -s "$T/pid.n5" ] && break; sleep 0.05; done
start_iodig "$T/slow.json" slow 5 -K -U -d "${S#/dev/}" --json
start_iodig "$T/slow.txt" slow 5 -K -U -d "${S#/dev/}" --record "$T/slow.rec"
start_iodig "$T/snoop.json" snoop -K -U -d "$d" --json --record "$T/snoop.rec"
touch "$T/go5"; wait $J1 $J2 || die "stackload failed"
stop_all_iodig
for f in slow:4 snoop:10; do
	n=${f#*:}; f=${f%:*}
	got=$(jq -s '[.[] | select(.type == "request" and .comm == "stackload-fp")
		| select((.stack.kernel | map(.sym) | index("blkdev_read_iter")) != null
			and ([.stack.user[:5][].sym] == ["inner","through","middle","outer","main"]))] | length' "$T/$f.json")
	assert_eq "$got" "$n" "$f -K -U: requests with the submitter's kernel stack (blkdev_read_iter) and user stack (inner < through < middle < outer < main)"
done
grep -q "inner+0x[0-9a-f]* \[stackload-fp\] .*stackload.c:$line" "$T/slow.txt" || die "slow -K -U text: $(head -20 "$T/slow.txt")"
"$IODIG" replay --json "$T/snoop.rec" > "$T/snoop.replay.json" 2>"$T/e" || die "replay: $(cat "$T/e")"
cmp "$T/snoop.json" "$T/snoop.replay.json" || die "snoop -K -U --json and its replay differ: $(diff "$T/snoop.json" "$T/snoop.replay.json" | head -5)"
"$IODIG" replay "$T/slow.rec" > "$T/slow.replay.txt" 2>"$T/e" || die "replay: $(cat "$T/e")"
cmp "$T/slow.txt" "$T/slow.replay.txt" || die "slow -K -U and its replay differ: $(diff "$T/slow.txt" "$T/slow.replay.txt" | head -5)"
ok "--record with -K -U: replayed after the helper exited, snoop's JSON ($(wc -l < "$T/snoop.json") lines) and slow's text, stacks and lines included, identical"
# the report of slow's recording: each of the 4 slow reads with its code path,
# named from the recording (the helper is gone)
"$IODIG" report "$T/slow.rec" -o "$T/slow.html" 2>"$T/e" || die "report: $(cat "$T/e")"
/usr/bin/python3 - "$T/slow.html" <<'PY' || die "report's code paths"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.in_slowest, self.head = [], None, None, False, []
    def handle_starttag(self, tag, a):
        if tag == "table":
            self.in_slowest = dict(a).get("id") == "slowest"
        elif self.in_slowest and tag == "tr":
            self.row = []
        elif self.in_slowest and tag in ("td", "th"):
            self.cell = []
    def handle_data(self, d):
        if self.cell is not None:
            self.cell.append(d)
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell)); self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row); self.row = None
        elif tag == "table":
            self.in_slowest = False
p = P(); p.feed(open(sys.argv[1]).read())
head, rows = p.rows[0], p.rows[1:]
col, comm = head.index("code path (at submission)"), head.index("comm")
mine = [r for r in rows if r[comm] == "stackload-fp"]
assert len(mine) == 4, (len(mine), rows[:3])
for r in mine:
    path = r[col]
    assert path.startswith("inner"), path[:200]	# the summary: the program's innermost frame
    for f in ("inner+", "through (inlined)", "middle+", "outer+", "main+", "blkdev_read_iter+", "stackload.c:"):
        assert f in path, (f, path)
print("  ok: report: the 4 slow reads, each with its code path (inner < through < middle < outer < main, then the kernel's blkdev_read_iter), from the recording")
PY

# 6. which code path issues the I/O, and how long its bios take: fio with
# io_uring and with psync, each through its own kernel path, with counts
# equal to fio's own; every bio timed from submission to its end.  And the
# latency per stack on a device whose reads take 20 ms, beside a fast one.
start_iodig "$T/fio.json" stacks -K -d "$d" --json
fio --name=u --filename="$L" --ioengine=io_uring --direct=1 --rw=randread --bs=4k --number_ios=300 --size=32M \
	--output-format=json > "$T/fu.json" || die "fio io_uring"
fio --name=p --filename="$L" --ioengine=psync --direct=1 --rw=randread --bs=4k --number_ios=200 --size=32M \
	--output-format=json > "$T/fp.json" || die "fio psync"
stop_iodig
path() { jq -s "[.[] | select(.type == \"stack\" and .comm == \"fio\" and any(.kernel[]; .sym == \"$1\")) | .count] | add // 0" "$T/fio.json"; }
assert_eq "$(path io_issue_sqe)" "$(jq '.jobs[0].read.total_ios' "$T/fu.json")" "io_uring: bios under io_issue_sqe = fio's total_ios"
assert_eq "$(path __x64_sys_pread64)" "$(jq '.jobs[0].read.total_ios' "$T/fp.json")" "psync: bios under the pread64 system call = fio's total_ios"
assert_eq "$(jq -s '[.[] | select(.type == "stack") | select(.q2c.count != .count)] | length' "$T/fio.json")" 0 "stacks whose bios are not all timed"
assert_eq "$(jq -s -c '[.[] | select(.type == "summary") | .untimed, .unmatched, .inflight_full]' "$T/fio.json")" '[0,0,0]' "untimed, unmatched, inflight_full"

# fio (Debian's, no frame pointers) through libaio: one submission path,
# so one user stack, cut short at libc's syscall(), every bio in it and none
# lost.  The kernel's walk of the same stacks followed fio's stale bp into
# garbage frames: 1905 distinct stacks for these 20,000 reads, 1047 lost.
start_iodig "$T/aio.json" stacks -U -d "$d" -n 0 --json
fio --name=a --filename="$L" --ioengine=libaio --iodepth=16 --direct=1 --rw=randread --bs=4k --number_ios=20000 \
	--size=32M --output-format=json > "$T/fa.json" || die "fio libaio"
stop_iodig
assert_eq "$(jq -s -c '[.[] | select(.type == "stack" and .comm == "fio") | [.count, [.user[].sym], .user_cut_short]]' "$T/aio.json")" \
	"[[$(jq '.jobs[0].read.total_ios' "$T/fa.json"),[\"syscall\"],true]]" \
	"libaio without frame pointers: one user stack (syscall, cut short) with all of fio's total_ios"
assert_eq "$(jq -s -c '[.[] | select(.type == "summary") | .ustack_lost]' "$T/aio.json")" '[0]' "user stacks lost"

"$H/stackload-fp" "$T/go6" "$S" 5 > "$T/pid.s6" & J1=$!
"$H/stackload-fp" "$T/go6" "$L" 10 > "$T/pid.f6" & J2=$!
for i in $(seq 50); do [ -s "$T/pid.s6" ] && [ -s "$T/pid.f6" ] && break; sleep 0.05; done
start_iodig "$T/lat.json" stacks -n 0 --json	# all: other I/O on the machine makes stacks of its own
start_iodig "$T/lat.txt" stacks -n 0
touch "$T/go6"; wait $J1 $J2 || die "stackload failed"
stop_all_iodig
SP=$(cat "$T/pid.s6"); FP6=$(cat "$T/pid.f6")
jq -s -e "[.[] | select(.type == \"stack\" and .pid == $SP)] | length == 1 and (.[0] | .count == 5 and .q2c.count == 5
	and .q2c.p50_ns >= 20000000 and .q2c.max_ns < 30000000)" "$T/lat.json" >/dev/null \
	|| die "slow device's stack: $(jq -c "select(.type == \"stack\" and .pid == $SP) | [.count, .q2c.count, .q2c.p50_ns, .q2c.max_ns]" "$T/lat.json")"
ok "20 ms device: its stack's 5 bios timed, p50 20 ms or more, max under 30 ms"
jq -s -e "[.[] | select(.type == \"stack\" and .pid == $FP6)] | length == 1 and (.[0] | .count == 10 and .q2c.count == 10
	and .q2c.max_ns < 5000000)" "$T/lat.json" >/dev/null \
	|| die "fast device's stack: $(jq -c "select(.type == \"stack\" and .pid == $FP6) | [.count, .q2c.count, .q2c.max_ns]" "$T/lat.json")"
ok "loop device: its stack's 10 bios timed, all under 5 ms"
grep -qE "^  stackload-fp \[$SP\] on [^:]*: 5 bios, 20480 bytes; Q2C p50 2[0-9.]+ms p99 2[0-9.]+ms max 2[0-9.]+ms$" "$T/lat.txt" \
	|| die "text: $(grep "stackload-fp \[$SP\]" "$T/lat.txt")"
ok "text: the stack's Q2C p50, p99 and max"

# 7. the flame graph in a browser: headless Chromium renders it without a
# script error, and the screenshot shows the boxes (not a blank page)
command -v chromium >/dev/null || skip "needs chromium (Debian package chromium)"
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --user-data-dir="$T/chromium" --enable-logging=stderr --v=0 \
	--window-size=1200,700 --screenshot="$T/flame.png" "file://$T/s.svg" 2>"$T/chromium.log" || die "chromium: $(tail -3 "$T/chromium.log")"
grep -E 'CONSOLE|Uncaught' "$T/chromium.log" && die "the flame graph's script logged the above"
/usr/bin/python3 - "$T/flame.png" <<'PY' || die "screenshot"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
px = list(im.getdata())
# the boxes are warm colours (red/orange/yellow: R high, B low)
warm = sum(1 for r, g, b in px if r > 180 and b < 120)
print(f"  {warm} of {len(px)} pixels in flame colours")
assert warm > len(px) * 0.03, warm
PY
ok "Chromium rendered the flame graph: no console error, boxes on the screenshot"
