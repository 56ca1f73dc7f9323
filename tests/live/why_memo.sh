# why's kernel stacks from memos of their paths (kmemo.bpf.h), on a workload
# whose answer is known: pingA blocks 2N times on two pipes, in pipe_read
# and in pipe_write, and pingB wakes it each time from the other
# (tests/helpers/pipepingpong.py).  With memos (the default), with -K, and
# with --walk-each: each of pingA's calls waits where it must, is woken
# from where it must, and -K's stack is the call's path; the memos are
# used, checked, and never differ from the kernel's walk.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
N=200

run() {	# out args...: pingA's 2N calls traced
	rm -f "$T/go" "$T/pp.out"	# (the last run's pid would be read before the redirect empties it)
	"$TOP/tests/helpers/pipepingpong.py" "$T/go" $N 1 > "$T/pp.out" &
	local pp=$!
	for i in $(seq 200); do [ -s "$T/pp.out" ] && break; sleep 0.05; done
	[ -s "$T/pp.out" ] || die "pipepingpong.py printed no pid in 10 s"
	local out=$1
	shift
	start_iodig "$out" why --json 0.5 -p "$(head -1 "$T/pp.out")" --syscalls read,write "$@"
	touch "$T/go"
	wait $pp
	sleep 0.3
	stop_iodig
}

# every call: its one place and its waker's, against the helper's design
places() {	# json what
	jq -c 'select(.type == "call") | [.syscall, (.waits[] | select(.part == "sleep") | [.in, .woken_by.comm, .woken_by.how])]' "$1" \
		| sed 's/"anon_pipe_/"pipe_/g' | sort | uniq -c | awk '{ $1 = $1; print }' > "$T/places"
	printf '%s\n' "$N [\"read\",[\"pipe_read\",\"pingB\",\"pipe_write\"]]" \
		"$N [\"write\",[\"pipe_write\",\"pingB\",\"pipe_read\"]]" > "$T/want"
	cmp -s "$T/places" "$T/want" || die "$2: the calls' waits: $(head -5 "$T/places"); a sample of the calls: $(jq -c 'select(.type == "call") | [.syscall, .wall_ns, .waits]' "$1" | awk 'NR % 50 == 1' | head -3)"
	ok "$2: $N reads asleep in pipe_read woken from pipe_write, $N writes in pipe_write woken from pipe_read"
}

memos() {	# json what: the memos used, checked, never different
	local c
	c=$(jq -s -r '[.[] | select(.type == "summary")][0] | [.kstack_walked, .kstack_offstack, .kstack_memo, .kstack_checked, .kstack_differed] | @tsv' "$1")
	read -r walked off memo checked differed <<< "$c"
	assert_eq "$differed" 0 "$2: memos that differed from the kernel's walk"
	# 2N blocks and 2N wakes of pingA at least; its two paths each, and
	# what else blocks or wakes on them, walked once a CPU or so; beside
	# them the wakes on an interrupt's stack, walked each time (pingB's by
	# its timer: it follows pingA's waker)
	[ "$memo" -ge $((4 * N * 9 / 10)) ] && [ $((walked - off)) -le $(( (walked + memo) / 10 )) ] \
		|| die "$2: walked $walked ($off on an interrupt's stack), from memos $memo"
	[ "$checked" -ge $((memo / 64 - 2)) ] || die "$2: checked $checked of $memo"
	ok "$2: $walked stacks walked ($off on an interrupt's stack), $memo from memos, $checked of those checked"
}

run "$T/m.json"
places "$T/m.json" "memos"
memos "$T/m.json" "memos"

run "$T/k.json" -K
places "$T/k.json" "-K"
memos "$T/k.json" "-K"
# -K: the longest wait's stack is the call's path, from the scheduler to
# the system call's entry
jq -r 'select(.type == "call") | [.syscall, ([.longest_wait.kernel[].sym] | join(" "))] | @tsv' "$T/k.json" \
	| sed 's/anon_pipe_/pipe_/' | sort | uniq -c | awk '{ $1 = $1; print }' > "$T/kst"
grep -q "^$N read __schedule schedule pipe_read vfs_read ksys_read do_syscall_64 entry_SYSCALL_64" "$T/kst" \
	&& grep -q "^$N write __schedule schedule pipe_write vfs_write ksys_write do_syscall_64 entry_SYSCALL_64" "$T/kst" \
	|| die "-K: the calls' stacks: $(cat "$T/kst")"
ok "-K: each read's stack runs from pipe_read to the syscall entry, each write's from pipe_write"

run "$T/w.json" --walk-each
places "$T/w.json" "--walk-each"
# ... every stack walked, into the same map: pingA's 2N blocks and 2N
# wakes at least, none from a memo
c=$(jq -s -r '[.[] | select(.type == "summary")][0] | [.kstack_walked, .kstack_memo, .kstack_checked] | @tsv' "$T/w.json")
read -r walked memo checked <<< "$c"
[ "$walked" -ge $((4 * N)) ] && [ "$memo" = 0 ] && [ "$checked" = 0 ] || die "--walk-each: walked $walked, from memos $memo, checked $checked"
ok "--walk-each: $walked stacks walked, none from a memo"
