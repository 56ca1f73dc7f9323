# iodig why names the holder of a page lock: two readers of one page of a
# device whose reads take 30 ms (a FUSE file behind the loop device); the
# second (folioB) begins 5 ms after the first (folioA) and waits for the page
# while A's read is in flight.  B's wait must be ended by A's request: its
# submitter A's tid, its Q2C at least the device's 30 ms and at most A's
# own pread; the wait itself at least from B's start to the earliest A's
# read could end, and within B's own pread.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
S=$(slowdev 30 64) || exit
"$TOP/tests/helpers/foliowait.py" "$S" "$T/go" 4 > "$T/f.out" &
defer "kill $! 2>/dev/null"
for i in $(seq 50); do [ -s "$T/f.out" ] && break; sleep 0.05; done
start_iodig "$T/w.json" why --json 5 --comm folioB --syscalls pread64
start_iodig "$T/w.txt" why 5 --comm folioB --syscalls pread64
touch "$T/go"
for i in $(seq 200); do [ "$(wc -l < "$T/f.out")" -ge 9 ] && break; sleep 0.05; done
sleep 0.3
stop_all_iodig
assert_eq "$(wc -l < "$T/f.out")" 9 "the helper's 8 reads"
A=$(awk '$1 == "folioA" { print $2; exit }' "$T/f.out")
# per round: A's t0 t1, B's t0 t1
paste -d' ' <(awk '$1 == "folioA" { print $3, $4 }' "$T/f.out") <(awk '$1 == "folioB" { print $3, $4 }' "$T/f.out") > "$T/clocks"
jq -c 'select(.type == "call") | [.waits[] | select(.part == "io" and (.in | test("folio"))) | [.ns, .woken_by.ended_request.tid, .woken_by.ended_request.comm, .woken_by.ended_request.disk, .woken_by.ended_request.op, .woken_by.ended_request.q2c_ns]][0]' "$T/w.json" > "$T/waits"
assert_eq "$(wc -l < "$T/waits")" 4 "B's 4 slow preads"
paste -d' ' "$T/waits" "$T/clocks" | tr -d '[]"' | tr ',' ' ' | awk -v a="$A" -v d="${S#/dev/}" '
	{ ns = $1; if ($2 != a || $3 != "folioA" || $4 != d || $5 != "read" || $6 < 30000000 || $6 > $8 - $7 ||
	      ns > $10 - $9 || ns < $7 + 30000000 - $9 - 1000000) { bad++; print } }
	END { exit bad > 0 }' \
	|| die "B's waits (ns, ended by tid, comm, disk, op, Q2C | A t0 t1, B t0 t1; A is $A): $(paste -d' ' "$T/waits" "$T/clocks" | tr '\n' ';')"
ok "each of B's reads waited for the page A was reading: ended by folioA[$A]'s read, Q2C (ns) $(jq -r '.[5]' "$T/waits" | tr '\n' ' ')"
grep -qE "^    waited: io [0-9.]+ ms in [a-z_]*folio[a-z_]* <- .*, ending ${S#/dev/} read 4096 B of folioA\[$A/$A\] \(Q2C [0-9.]+ ms D2C [0-9.]+ ms\)" "$T/w.txt" \
	|| die "text: $(grep waited "$T/w.txt" | head -2)"
ok "text: $(grep -m1 waited "$T/w.txt" | sed 's/^ *//')"
