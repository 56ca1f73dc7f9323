# Every tracing command built with AddressSanitizer and UBSan (make asan),
# started, idle, then under a load (fio on a loop device, a dd writing), stopped by
# SIGINT: exit 0 and no sanitizer report.  UBSan stops at its first error
# and LeakSanitizer reports at exit (exit code 99).  tests/sanitizers.sh
# runs the unit tests and the readers of recordings so; this runs what
# only live tracing reaches: the readers of rings, maps and perf buffers,
# the summaries at Ctrl-C, the links detached from threads.  Before it,
# `top`, `stacks`, `readahead` and `throttle` with nothing to show stopped
# in UBSan (qsort of no rows from a NULL array), and `export` and `record`
# leaked the skipped-count's disks.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$TOP/build-asan/iodig-asan
[ -x "$A" ] || skip "no $A: run make asan (make test builds it)"
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1
L=$(loopdev 64); d=${L#/dev/}
EP=$(free_port)

# sanitized NAME ARGS...: 1.2 s idle, 1.5 s under load, then SIGINT
n=0
sanitized() {
	local name=$1
	shift
	IODIG=$A start_iodig "$T/$name.out" "$@"
	sleep 1.2	# an interval with nothing to show, then the load
	fio --name=s --filename="$L" --direct=1 --rw=randrw --bs=4k --size=16M --runtime=1 --time_based \
		--ioengine=psync > /dev/null 2>&1 || die "fio"
	dd if=/dev/zero of="$T/dd" bs=4k count=256 conv=fsync 2>/dev/null
	sleep 0.5
	stop_iodig	# (exit 0, else it dies with the output's end)
	if grep -q "Sanitizer\|runtime error" "$T/$name.out.err"; then
		die "iodig $* under ASan/UBSan: $(grep -A8 "Sanitizer\|runtime error" "$T/$name.out.err" | head -12)"
	fi
	n=$((n + 1))
}

sanitized lat lat
sanitized lat-phases lat --phases -d "$d"
sanitized slow slow 1
sanitized snoop snoop
sanitized top top
sanitized export export --listen "127.0.0.1:$EP"
sanitized record record -o "$T/r"
sanitized stacks stacks
sanitized size size
sanitized iostat iostat 1
sanitized cache cache
sanitized readahead readahead
sanitized throttle throttle
sanitized exec exec
sanitized sysfs sysfs
sanitized layers layers
sanitized why why
sanitized doctor doctor -d "$d" 30
sanitized func func "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6):malloc"
ok "$n tracing commands under ASan and UBSan, each under load and stopped by SIGINT: exit 0, no report"

# refused WANT ARGS...: exit WANT (1, or 2 for a usage error) after one
# line, nothing leaked on the way out (snoop --record into a missing
# directory returned past its clean-up: a leak)
n=0
refused() {
	local want=$1 rc
	shift
	"$A" "$@" > /dev/null 2> "$T/refused.err"; rc=$?
	[ "$rc" = "$want" ] || die "iodig $* under ASan/UBSan: exit $rc, want $want: $(head -c 1500 "$T/refused.err")"
	[ "$(wc -l < "$T/refused.err")" = 1 ] || die "iodig $*: not one line: $(head -c 1500 "$T/refused.err")"
	n=$((n + 1))
}
refused 1 snoop --record "$T/no/dir/x.rec"
refused 1 slow -d nosuchdisk
refused 1 record -o "$T/no/dir/r"
refused 2 export --listen 256.0.0.1:1
refused 1 why -p 999999999
refused 1 func no_such_function_anywhere
refused 1 stacks -p 999999999
refused 1 top -c /no/such/cgroup
ok "$n bad inputs under ASan and UBSan: the exit asked, one line, no report"
