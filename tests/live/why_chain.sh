# iodig why follows a wait's chain of wakers (--depth, default 3) on a known
# chain: a reader of a pipe whose writer (chain1) first waits on a pipe from
# chain2, which waits on chain3, which runs 30 ms of its own CPU time first.
# Each link is held to the helpers' own tids and chain3's own thread clock.
. "$(dirname "$0")/../lib.sh"
need_root_bpf

"$TOP/tests/helpers/pipechain.py" "$T/go" 4 30 3 > "$T/pc.out" &
defer "kill $! 2>/dev/null"
for i in $(seq 50); do [ -s "$T/pc.out" ] && break; sleep 0.05; done
P=$(head -1 "$T/pc.out")
start_iodig "$T/c.json" why --json 10 -p "$P" --syscalls read
start_iodig "$T/c2.txt" why --depth 2 10 -p "$P" --syscalls read
start_iodig "$T/c1.txt" why --depth 1 10 -p "$P" --syscalls read
touch "$T/go"
for i in $(seq 200); do [ "$(wc -l < "$T/pc.out")" -ge 5 ] && [ "$(wc -l < "$T/go.chain3" 2>/dev/null)" -ge 5 ] && break; sleep 0.05; done
sleep 0.3
stop_all_iodig
C1=$(head -1 "$T/go.chain1"); C2=$(head -1 "$T/go.chain2"); C3=$(head -1 "$T/go.chain3")
tail -n +2 "$T/go.chain3" > "$T/burn"

# the chain of each read's wait in pipe_read: tids, places, and chain3's
# time over its own wait
jq -c 'select(.type == "call") | [.waits[] | select(.in | test("^(anon_)?pipe_read$")) | .woken_by
	| [.tid, .waited.in, .waited.woken_by.tid, .waited.woken_by.waited.in, .waited.woken_by.waited.woken_by.tid,
	   .waited.woken_by.waited.woken_by.followed, .waited.woken_by.waited.woken_by.parts.cpu_ns,
	   .waited.woken_by.waited.woken_by.parts.runq_ns, .waited.woken_by.waited.woken_by.wait_ns,
	   .waited.woken_by.waited.woken_by.resolution_ns, (.waited.woken_by.waited.woken_by.parts.steal_ns // 0),
	   .waited.woken_by.waited.woken_by.waited]][0]' "$T/c.json" > "$T/chains"
assert_eq "$(wc -l < "$T/chains")" 4 "the 4 slow reads"
# chain3's CPU over chain2's wait: never more than its own clock over a span
# that holds it (from its last byte, or its fork), and at least 80% of the
# wait with runq and steal (it ran, waited to run or had its CPU taken by
# the host all through); the wait itself at least half chain3's 30 ms (chain2,
# woken, may wait for a CPU while chain3 burns on: its next wait is that much
# shorter, 24.8 ms in a loaded CI run)
paste -d' ' "$T/chains" "$T/burn" | tr -d '[]"' | tr ',' ' ' | awk -v a="$C1" -v b="$C2" -v c="$C3" '
	{ if ($1 != a || $2 !~ /^(anon_)?pipe_read$/ || $3 != b || $4 !~ /^(anon_)?pipe_read$/ || $5 != c ||
	      $6 != "true" || $7 > $13 + 2000000 + $10 || $7 + $8 + $11 < 0.8 * $9 || $9 < 15000000 || $12 != "null") { bad++; print } }
	END { exit bad > 0 }' \
	|| die "chains (chain1 $C1 chain2 $C2 chain3 $C3; tid, in, tid, in, tid, followed, cpu, runq, wait, resolution, steal, deeper | own CPU): $(paste -d' ' "$T/chains" "$T/burn" | tr '\n' ';')"
ok "each read: chainread <- chain1[$C1] <- chain2[$C2] <- chain3[$C3], whose CPU over the wait is within its own clock: $(paste -d' ' "$T/chains" "$T/burn" | tr -d '[]"' | tr ',' ' ' | awk '{ printf "%s/%s ns ", $7, $13 }')"

jq -s -e '[.[] | select(.type == "summary") | .syscalls[] | select(.syscall == "read") | .waits[0]
	| select(.woken_by == "chain1" and .chain == ["chain2", "chain3"] and .calls == 4)] | length == 1' "$T/c.json" >/dev/null \
	|| die "summary: $(jq -c 'select(.type == "summary") | .syscalls[].waits' "$T/c.json")"
ok "summary: the 4 waits in one row, chain1 <- chain2 <- chain3"

# --depth 2: chain2 named with its time, chain3 not; --depth 1: the waker alone
n=$(grep -cE "^    waited: sleep [0-9.]+ ms in (anon_)?pipe_read <- chain1\[[0-9]+/$C1\] in [a-z_]+: [^;]*; its sleep [0-9.]+ ms in (anon_)?pipe_read <- chain2\[[0-9]+/$C2\] in [a-z_]+: (sleep|cpu|runq) [0-9.]+ ms[^;]*$" "$T/c2.txt")
assert_eq "$n" 4 "--depth 2: the 4 reads' chains end at chain2 ($(grep -m1 waited "$T/c2.txt"))"
grep -qE "^  sleep .* (anon_)?pipe_read <- chain1 <- chain2$" "$T/c2.txt" || die "--depth 2: summary $(grep -A3 '^  waited' "$T/c2.txt")"
n=$(grep -cE "^    waited: sleep [0-9.]+ ms in (anon_)?pipe_read <- chain1\[[0-9]+/$C1\] in [a-z_]+: [^;]*$" "$T/c1.txt")
assert_eq "$n" 4 "--depth 1: the 4 reads name chain1 alone ($(grep -m1 waited "$T/c1.txt"))"
ok "--depth 2 and 1 stop there: $(grep -m1 waited "$T/c2.txt" | sed 's/^ *//')"
