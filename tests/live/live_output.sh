# Records reach the output within 1 s of their request's completion at a
# low rate: slow's text into a file, snoop's JSON into a pipe, sysfs's text.
# (Records used to wait in the ring buffer until 2 MiB of them, and stdout
# to a pipe or file was fully buffered.)
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 64); n=${L#/dev/}

# lines FILE: how many lines FILE has now
lines() { wc -l < "$1"; }
# within_1s FILE WANT [COUNT]: waits until COUNT FILE (default: lines) says
# WANT or more; prints the wait in ms
within_1s() {
	local t0=$(date +%s%N) i count=${3:-lines}
	for i in $(seq 1 100); do
		[ "$($count "$1")" -ge "$2" ] && { echo $(( ($(date +%s%N) - t0) / 1000000 )); return 0; }
		sleep 0.02
	done
	return 1
}

start_iodig "$T/slow.txt" slow 0 -d "$n"
# snoop into a pipe: stdout is not a tty and not a file
"$IODIG" snoop -d "$n" --json --ready-file "$T/ready2" 2>"$T/snoop.err" | cat > "$T/snoop.json" &
PIDS+=("$(pgrep -n -f "${IODIG##*/} snoop -d $n")")
for i in $(seq 50); do [ -s "$T/ready2" ] && break; sleep 0.1; done
[ -s "$T/ready2" ] || die "snoop not ready"
base=$(lines "$T/slow.txt")	# the header
for k in 1 2 3; do
	dd if="$L" of=/dev/null bs=4k count=1 skip=$((k * 10)) iflag=direct status=none || die dd
	ms=$(within_1s "$T/slow.txt" $((base + k))) || die "slow: request $k not printed within 1 s (file: $(cat "$T/slow.txt"))"
	ok "slow (text, to a file): request $k printed ${ms} ms after dd returned"
	ms=$(within_1s "$T/snoop.json" "$k") || die "snoop: request $k not in the pipe within 1 s"
	ok "snoop (JSON, to a pipe): request $k printed ${ms} ms after dd returned"
	sleep 0.7
done
# the lines are the requests asked for, with the submitter
assert_eq "$(jq -r .comm "$T/snoop.json" | sort -u)" dd "snoop records are dd's"
assert_eq "$(grep -c ' dd ' "$T/slow.txt")" 3 "slow lines for dd's requests"

# why: each slow call on the screen within 1 s of its return, at one call a
# second; text into a file, JSON into a pipe
# calls FILE: how many fdatasync calls FILE shows now
calls() { grep -c 'fdatasync' "$1"; }
start_iodig "$T/why.txt" why 0 --comm dd --syscalls fdatasync
"$IODIG" why 0 --comm dd --syscalls fdatasync --json --ready-file "$T/ready3" 2>"$T/why.err" | cat > "$T/why.json" &
PIDS+=("$(pgrep -n -f "${IODIG##*/} why 0 --comm dd --syscalls fdatasync --json")")
for i in $(seq 50); do [ -s "$T/ready3" ] && break; sleep 0.1; done
[ -s "$T/ready3" ] || die "why --json not ready: $(cat "$T/why.err")"
for k in 1 2 3; do
	dd if=/dev/zero of=/dev/shm/iodig-live-$$ bs=4k count=1 conv=fdatasync status=none || die dd
	ms=$(within_1s "$T/why.txt" "$k" calls) || die "why: call $k not printed within 1 s (file: $(cat "$T/why.txt"))"
	ok "why (text, to a file): call $k printed ${ms} ms after dd returned"
	ms=$(within_1s "$T/why.json" "$k" calls) || die "why: call $k not in the pipe within 1 s"
	ok "why (JSON, to a pipe): call $k printed ${ms} ms after dd returned"
	sleep 0.7
done
rm -f /dev/shm/iodig-live-$$
assert_eq "$(jq -r 'select(.type == "call") | .comm + " " + .syscall' "$T/why.json" | sort | uniq -c | tr -s ' ')" " 3 dd fdatasync" "why's records: dd's three calls"
