# The JSON of every command, checked against one schema per record type
# (tests/schema): a field renamed, dropped or added without its schema fails.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
S="$TOP/tests/schema"
check() {	# schema file [type]
	local n
	n=$(python3 "$S/check.py" "$S/$1.json" "$2" ${3:-}) || die "schema $1: $n"
	ok "$1: $n objects of $(basename "$2") fit"
}
L=$(loopdev 128); n=${L#/dev/}
start_iodig "$T/lat.json" lat --json
start_iodig "$T/latDF.json" lat -D -F --json
start_iodig "$T/phases.json" lat --phases --json
start_iodig "$T/slow.json" slow 0 -d "$n" --json --record "$T/slow.rec"
start_iodig "$T/snoop.json" snoop -d "$n" --json
start_iodig "$T/sysfs.json" sysfs --json
start_iodig "$T/why.json" why 0 --comm fio --json
start_iodig "$T/exec.json" exec --json
start_iodig "$T/top.json" top --json 1
start_iodig "$T/iostat.json" iostat --json 1
start_iodig "$T/size.json" size --json
start_iodig "$T/stacks.json" stacks --json
start_iodig "$T/cache.json" cache --json
start_iodig "$T/cachef.json" cache --by file --json
start_iodig "$T/cachep.json" cache --by process --json
start_iodig "$T/ra.json" readahead --json
start_iodig "$T/rap.json" readahead --by process --json
start_iodig "$T/stacks_tp.json" stacks --tracepoint block:block_rq_issue -K --json
stall_load "$L" 500
# buffered reads of a file dropped from the cache: rows for cache and readahead
head -c 1M /dev/urandom > "$T/ra.data"; sync "$T/ra.data"	# clean pages: DONTNEED drops them
python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$T/ra.data"
cat "$T/ra.data" > /dev/null
stop_all_iodig
check lat.hist "$T/lat.json" hist
check lat.hist "$T/latDF.json" hist
check lat.interval_end "$T/lat.json" interval_end
check lat.interval_end "$T/latDF.json" interval_end
check phases.hist "$T/phases.json" hist
check phases.interval_end "$T/phases.json" interval_end
for f in slow snoop; do
	check request "$T/$f.json" request
	check summary "$T/$f.json" summary
done
check queue_write "$T/slow.json" queue_write
check queue_write "$T/sysfs.json" queue_write
check why.call "$T/why.json" call
check why.summary "$T/why.json" summary
check exec "$T/exec.json" exec
check exec.summary "$T/exec.json" summary
check top "$T/top.json" top
check top.interval_end "$T/top.json" interval_end
check iostat "$T/iostat.json" iostat
check size "$T/size.json" size
check size.interval_end "$T/size.json" interval_end
for f in cache cachef cachep; do
	check cache "$T/$f.json" cache
	check cache.interval_end "$T/$f.json" interval_end
done
for f in ra rap; do
	check readahead "$T/$f.json" readahead
	check readahead.interval_end "$T/$f.json" interval_end
done
"$IODIG" cache --snapshot --json "$IODIG" > "$T/snap.json" || die "cache --snapshot"
check cache.snapshot "$T/snap.json" snapshot
for f in stacks stacks_tp; do
	check stack "$T/$f.json" stack
	check stacks.summary "$T/$f.json" summary
done
"$IODIG" replay --json "$T/slow.rec" > "$T/replay.json" || die replay
check request "$T/replay.json" request
# doctor on the same recording: the stall load's scheduler writes (a finding)
"$IODIG" doctor --from "$T/slow.rec" --json > "$T/doctor.json" || die "doctor --from"
check finding "$T/doctor.json" finding
# func (-U: the stack fields too): a process that calls getpid 100 times
/usr/bin/python3 -c 'import os, sys, time
while not os.path.exists(sys.argv[1]): time.sleep(0.01)
for i in range(100): os.getpid()
time.sleep(0.3)' "$T/go" & PY=$!; defer "kill $PY 2>/dev/null"
# until the dynamic loader has mapped libc (seen once: func looked while the
# new image had only python3 and ld.so)
for i in $(seq 500); do grep -q 'libc\.so' "/proc/$PY/maps" 2>/dev/null && break; sleep 0.02; done
grep -q 'libc\.so' "/proc/$PY/maps" || die "python3 had not mapped libc after 10 s"
start_iodig "$T/func.json" func -U -p "$PY" libc:getpid --json
touch "$T/go"
wait $PY || die "the python3 calling getpid failed"
for i in $(seq 40); do kill -0 "$IODIG_PID" 2>/dev/null || break; sleep 0.1; done
wait "$IODIG_PID" || die "func -U exited non-zero"
PIDS=()
check func.hist "$T/func.json" hist
check func.interval_end "$T/func.json" interval_end
"$IODIG" probe --json > "$T/probe.json" || die probe
check probe "$T/probe.json"
"$IODIG" lat --json -d nosuchdisk_iodig 2> "$T/error.json"
check error "$T/error.json"
# and the checker does fail on a renamed field
sed 's/"q2c_ns"/"q2c"/' "$T/snoop.json" > "$T/renamed.json"
python3 "$S/check.py" "$S/request.json" "$T/renamed.json" request >/dev/null 2>&1 && die "a renamed field passed"
ok "a renamed field (q2c_ns -> q2c) fails the check"
