# --stats, the cost meter, against the kernel's own bpf_stats as bpftool
# reads them: iodig throttle --stats while a writer is dirty-throttled (its
# program runs only when balance_dirty_pages() judges a writer, so nothing
# runs it between bpftool's reading and iodig's end); the run count iodig
# prints equals bpftool's, and the calls its rows counted.  Also: --stats
# where no BPF runs is a usage error; --json gives the bpf_stats record.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftool >/dev/null || die "needs bpftool"
throttled_fs 32	# (its tracefs instance's event stays off)
start_iodig "$T/t.txt" throttle --stats -d "$a"
touch "$T/go"
wait $J || die "the writer failed"
bpftool prog show --json > "$T/progs.json" || die "bpftool prog show"
stop_iodig
want=$(jq '[.[] | select(.name == "throttle_bdp") | .run_cnt] | add' "$T/progs.json")
got=$(sed -n 's/^  throttle_bdp: \([0-9]*\) runs, .*/\1/p' "$T/t.txt")
calls=$(awk '$3 == "'"$a"'" { n += $4 } END { print n + 0 }' "$T/t.txt")
assert_eq "$got" "$want" "throttle_bdp's runs: iodig --stats against bpftool's bpf_stats"
assert_eq "$calls" "$want" "the calls the rows counted against the program's runs"
grep -q "^BPF (--stats): 1 programs ran $want times" "$T/t.txt" || die "the summary line: $(grep -A2 '^BPF' "$T/t.txt")"
ok "$(grep '^BPF' "$T/t.txt")"
"$IODIG" replay --stats /dev/null 2>"$T/e"; assert_eq "$?" 2 "--stats on a command with no BPF: exit"
grep -q "runs no BPF program" "$T/e" || die "$(cat "$T/e")"
start_iodig "$T/j.json" throttle --stats --json -d "$a"
stop_iodig
jq -e 'select(.type == "bpf_stats") | .programs == 1 and (.by_program[0].name == "throttle_bdp") and .seconds > 0' "$T/j.json" >/dev/null \
	|| die "JSON: $(grep bpf_stats "$T/j.json")"
ok "JSON: $(grep -c bpf_stats "$T/j.json") bpf_stats record, its program named"
