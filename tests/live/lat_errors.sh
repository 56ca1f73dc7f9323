# Bad input: one clear line and a non-zero exit.  SIGINT/SIGTERM: the summary
# so far, exit 0, and no BPF program or link left behind.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftool >/dev/null || skip "needs bpftool"

expect() {	# rc pattern what -- command...
	local rc=$1 pat=$2 what=$3 got
	shift 4
	"$@" >"$T/out" 2>"$T/err"; got=$?
	[ "$got" = "$rc" ] || die "$what: exit $got, want $rc ($(cat "$T/err"))"
	[ "$(wc -l < "$T/err")" = 1 ] || die "$what: want one line on stderr, got: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || die "$what: stderr '$(cat "$T/err")' lacks '$pat'"
	ok "$what: exit $rc, '$(cat "$T/err")'"
}
expect 1 "iodig lat: disk: 'nosuchdisk': no such block device" "unknown disk" -- "$IODIG" lat -d nosuchdisk
expect 1 "no such block device" "a path that is no block device" -- "$IODIG" lat -d /etc/passwd
expect 2 "iodig lat: invalid interval 'x'" "bad interval" -- "$IODIG" lat x
expect 2 "invalid count '0'" "bad count" -- "$IODIG" lat 1 0
expect 2 "unexpected argument '3'" "extra argument" -- "$IODIG" lat 1 2 3
expect 2 "unknown option '-Z'" "unknown option" -- "$IODIG" lat -Z
expect 2 "unknown option '--nope'" "unknown long option" -- "$IODIG" lat --nope
expect 2 "option '-d' needs a value" "missing value" -- "$IODIG" lat -d
expect 2 "unknown command 'frobnicate'" "unknown command" -- "$IODIG" frobnicate
expect 1 '"error":' "errors are JSON under --json" -- "$IODIG" lat --json -d nosuchdisk
jq -e '.command == "lat" and .what == "disk"' "$T/err" >/dev/null || die "JSON error fields: $(cat "$T/err")"
# a process that cannot exist (above pid_max), for every command with -p
nopid=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
for cmd in "top 1" "stacks 1" "cache 1" "readahead 1" "size 1" "throttle" "snoop" "slow" "func vfs_read" "why" "doctor"; do
	# shellcheck disable=SC2086
	set -- $cmd
	name=$1
	shift
	expect 1 "pid: $nopid: no such process" "no such pid: $name" -- "$IODIG" "$name" -p "$nopid" "$@"
done
if command -v setpriv >/dev/null; then
	for cmd in "lat 1 1" "slow" "snoop" "sysfs" "probe" "func vfs_read"; do
		expect 1 "missing CAP_BPF and CAP_PERFMON: run iodig as root" "no capabilities: $cmd" -- \
			setpriv --inh-caps=-all --bounding-set=-all --reuid=65534 --regid=65534 --clear-groups $IODIG $cmd
	done
	# root without the capabilities is no better
	expect 1 "missing CAP_BPF and CAP_PERFMON" "uid 0 without capabilities: probe" -- \
		setpriv --inh-caps=-all --bounding-set=-all "$IODIG" probe
fi
# numbers: plain non-negative decimals, named when refused
expect 2 "invalid MIN_MS 'nan'" "slow nan" -- "$IODIG" slow nan
expect 2 "invalid MIN_MS '0x10'" "slow 0x10" -- "$IODIG" slow 0x10
expect 2 "invalid MIN_MS '1e3'" "slow 1e3" -- "$IODIG" slow 1e3
expect 2 "invalid number '-1': 0 or more" "slow -1" -- "$IODIG" slow -1
expect 2 "invalid interval '+1'" "lat +1" -- "$IODIG" lat +1
expect 2 "invalid interval ' 1'" "lat ' 1'" -- "$IODIG" lat " 1"
expect 2 "invalid pid '0x10'" "snoop -p 0x10" -- "$IODIG" snoop -p 0x10
# output that cannot be written: exit 1, said once
# lat says "Tracing..." on stderr first; the error is then the one other line
"$IODIG" lat 1 1 >/dev/full 2>"$T/err"; rc=$?
assert_eq "$rc" 1 "exit of lat into /dev/full"
assert_eq "$(grep -vc '^Tracing' "$T/err")" 1 "lines other than the banner from lat into /dev/full"
grep -qx "iodig lat: writing output: No space left on device" "$T/err" || die "lat into /dev/full: $(cat "$T/err")"
"$IODIG" lat --json 1 1 >/dev/full 2>"$T/err"
grep '^{' "$T/err" | jq -e '.what == "writing output"' >/dev/null || die "lat --json into /dev/full: $(cat "$T/err")"
ok "lat into /dev/full: exit 1, one error (text and JSON)"
expect 1 "iodig version: writing output: No space left on device" "version into /dev/full" -- \
	sh -c "exec $IODIG version >/dev/full"
# a ready file that cannot be written: said before anything is attached
expect 1 "writing the ready file: $T/no/dir/r: No such file or directory" "ready file in a missing directory" -- \
	"$IODIG" slow --ready-file "$T/no/dir/r"
"$IODIG" lat --help | grep -q '^Usage: iodig lat' || die "lat --help"
"$IODIG" help lat | grep -q '^Usage: iodig lat' || die "help lat"
"$IODIG" --version | grep -q '^iodig [0-9]' || die "--version"
ok "help and version"

# interval and count: exactly count reports, then exit 0 by itself
"$IODIG" lat --json 1 2 > "$T/ic.json" 2>/dev/null || die "lat 1 2 exited non-zero"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end")] | length' "$T/ic.json")" 2 "reports from 'lat 1 2'"

for sig in INT TERM HUP; do
	L=$(loopdev 64)
	start_iodig "$T/s.txt" lat -D
	fio --name=s --filename="$L" --direct=1 --rw=randread --bs=4k --size=32M --number_ios=500 --ioengine=psync >/dev/null
	[ "$(own_progs "$IODIG_PID" lat_complete)" = 1 ] || die "lat_complete not loaded while running"
	pids=$(own_ids "$IODIG_PID" prog_id); lids=$(own_ids "$IODIG_PID" link_id)
	[ -n "$pids" ] && [ -n "$lids" ] || die "no programs or links held by lat"
	kill -$sig "$IODIG_PID"; wait "$IODIG_PID"; rc=$?
	PIDS=()
	assert_eq "$rc" 0 "exit status after SIG$sig"
	grep -q "^disk = ${L#/dev/}" "$T/s.txt" || die "no summary for ${L#/dev/} after SIG$sig: $(cat "$T/s.txt")"
	# the 500, or fewer by the ones the kernel ran no program for, said
	c=$(awk -v d="disk = ${L#/dev/}" '$0 == d { on = 1 } on && /^count / { print $2; exit }' "$T/s.txt")
	sk=$(sed -n 's/^skipped: \([0-9]*\) requests.*/\1/p' "$T/s.txt")
	# (skipped is machine-wide here: lat -D traces every disk)
	[ -n "$c" ] && [ "$c" -le 500 ] && [ "$((c + ${sk:-0}))" -ge 500 ] || die "summary lacks the 500 requests: $(cat "$T/s.txt")"
	ok "SIG$sig printed the summary gathered so far"
	# the kernel frees a program after an RCU grace period: allow it 2 s
	for i in $(seq 40); do
		[ "$(ids_left prog "$pids")" = 0 ] && break
		sleep 0.05
	done
	assert_eq "$(ids_left prog "$pids")" 0 "lat programs left after SIG$sig"
	assert_eq "$(ids_left link "$lids")" 0 "links left after SIG$sig"
done

# SIGINT during the set-up, from a shell with no job control (this script):
# its background job starts with SIGINT ignored, and iodig's handler comes
# only once tracing is live; the signal, sent once iodig has blocked it
# (before that it would be ignored, as the shell asked), must end the run
# as soon as it is live: its summary, exit 0 (it was lost, and the run went
# on until the next signal)
"$IODIG" slow 10 > "$T/early.txt" 2>&1 & E=$!
PIDS+=("$E")
for i in $(seq 200); do
	b=$(awk '/^SigBlk:/ { print $2 }' /proc/$E/status 2>/dev/null)
	[ -n "$b" ] && [ $((0x$b & 2)) != 0 ] && break
	sleep 0.005
done
[ $((0x${b:-0} & 2)) != 0 ] || die "iodig did not block SIGINT at start (SigBlk ${b:-none})"
c=$(awk '/^SigCgt:/ { print $2 }' /proc/$E/status)
kill -INT $E
for i in $(seq 100); do kill -0 $E 2>/dev/null || break; sleep 0.1; done
if kill -0 $E 2>/dev/null; then
	kill -INT $E
	die "a SIGINT sent during the set-up was lost: iodig ran on for 10 s"
fi
wait $E; rc=$?
PIDS=()
assert_eq "$rc" 0 "exit status after a SIGINT during the set-up"
grep -q "requests completed" "$T/early.txt" || die "no summary after a SIGINT during the set-up: $(cat "$T/early.txt")"
ok "a SIGINT during the set-up (handler not yet set: SigCgt $c) ended the run once live, with its summary"

