# Shared by the live tests: loop devices on /dev/shm, iodig started and
# stopped the way a user would, and assertions on kernel-reported facts.
# A test exits 0 (pass), 1 (fail) or 77 (skip).  Under CI=true a missing
# capability is a failure, never a skip.  KEEP_T=1 keeps the test's directory.
# IODIG_UNDER_TEST=PATH runs another build: build-asan/iodig-asan puts every
# live test's iodig under ASan and UBSan (outside CI: their timings and RSS
# limits are the static build's).
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IODIG=$(readlink -f "${IODIG_UNDER_TEST:-$TOP/iodig}")
T=$(mktemp -d /tmp/iodig-test.XXXXXX)
PIDS=()

# defer CMD: run CMD at exit, last deferred first.  A file, not an array,
# so that helpers called in $(...) subshells can defer too.
defer() { echo "$*" >> "$T/defer"; }

# A verdict (fail or skip) given in a subshell, $(...) or a background
# job, must end the test itself, whatever construct called the helper: the
# subshell writes it to $T/verdict and signals the test's shell ($$ is that
# shell's pid in every subshell), whose trap exits with it; cleanup also
# reads the file, so a verdict can never be lost to a later "exit 0".
VERDICT_PID=$$
verdict() {	# CODE MESSAGE
	[ -s "$T/verdict" ] || echo "$1" > "$T/verdict"
	echo "$2" >&2
	if [ "$BASHPID" != "$VERDICT_PID" ]; then
		kill -USR1 "$VERDICT_PID" 2>/dev/null
		exit "$1"
	fi
	exit "$1"
}
trap 'echo "  (the verdict came from a subshell)" >&2; exit "$(cat "$T/verdict" 2>/dev/null || echo 1)"' USR1

cleanup() {
	local rc=$? last=$BASH_COMMAND p v
	# a test that ends non-zero without a verdict says where it stopped
	[ "$rc" != 0 ] && [ ! -s "$T/verdict" ] && echo "FAIL: the test exited $rc at: $last" >&2
	for p in "${PIDS[@]}"; do [ -n "$p" ] && kill -INT "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do [ -n "$p" ] && wait "$p" 2>/dev/null; done
	[ -f "$T/defer" ] && tac "$T/defer" | while read -r c; do eval "$c" >/dev/null 2>&1; done
	v=$(cat "$T/verdict" 2>/dev/null)
	[ -n "${KEEP_T:-}" ] && echo "kept $T" >&2 || rm -rf "$T"
	[ -n "$v" ] && [ "$rc" = 0 ] && rc=$v
	exit "$rc"
}
trap cleanup EXIT

skip() {
	if [ "${CI:-}" = true ]; then
		verdict 1 "FAIL (CI may not skip): $*"
	fi
	verdict 77 "SKIP: $*"
}

die() { verdict 1 "FAIL: $*"; }
ok() { echo "  ok: $*"; }

assert_eq() {	# got want what
	[ "$1" = "$2" ] || die "$3: got '$1', want '$2'"
	ok "$3 = $2"
}

# assert_seen got skipped want what: the kernel's count want is what iodig
# saw, or more by no more than the completions the kernel ran no BPF
# program for (skipped, one count for all ops of the disk: bench/counts.sh).
# skipped is measured: completions between its two probes at the last read
# make it a few low, even negative (skipped.h), never high; machine-wide
# (no -d) with other I/O on the machine, seen down to -4
assert_seen() {
	[ "$2" -ge -8 ] && [ "$1" -le "$3" ] && [ $(( $3 - $1 )) -le $(( $2 > 0 ? $2 : 0 )) ] ||
		die "$4: got $1 (+ $2 skipped), want $3"
	if [ "$1" = "$3" ]; then ok "$4 = $3"; else ok "$4 = $3 ($1 seen, $(( $3 - $1 )) skipped)"; fi
}

# assert_within got want rel_tolerance what
assert_within() {
	python3 -c "import sys; g,w,t=float('$1'),float('$2'),float('$3'); sys.exit(0 if abs(g-w)<=t*w else 1)" ||
		die "$4: got $1, want $2 within $(python3 -c "print(round($3*100,1))")%"
	ok "$4: $1 vs $2 (within $(python3 -c "print(round($3*100,1))")%)"
}

need_root_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -r /sys/kernel/btf/vmlinux ] || skip "needs kernel BTF"
	[ -x "$IODIG" ] || die "no $IODIG: run make first"
	command -v fio >/dev/null || skip "needs fio"
}

# loopdev SIZE_MB [START SECTORS] -> prints /dev/loopN (a file in /dev/shm
# behind it); with START and SECTORS, a partition loopNp1 is added with BLKPG
# (this kernel parses no partition tables) and its node made (no udev here).
loopdev() {
	local f l
	f=$(mktemp /dev/shm/iodig-test.XXXXXX)
	truncate -s "${1}M" "$f"
	if [ -n "${2:-}" ]; then
		l=$(losetup -f --show -P "$f") || die "losetup failed"
		addpart "$l" 1 "$2" "$3" || die "addpart $l"
		[ -b "${l}p1" ] || mknod "${l}p1" b $(tr ':' ' ' < /sys/class/block/${l#/dev/}p1/dev)
		defer "rm -f ${l}p1"
	elif [ -n "${LOOP_MINOR:-}" ]; then
		l=/dev/loop$LOOP_MINOR
		losetup "$l" "$f" || die "losetup $l"
	else
		l=$(losetup -f --show "$f") || die "losetup failed"
	fi
	defer "losetup -d $l; rm -f $f"
	echo "$l"
}

# loop_on_ring DEV: prints /dev/loopN, a new 64 MiB loop device whose
# requests share DEV's ring of tag grants (made by build/helpers/tagring at
# such a minor, through /dev/loop-control; removed at the end)
loop_on_ring() {
	local n
	n=$("$TOP/build/helpers/tagring" "$(cat /sys/class/block/${1#/dev/}/dev)") || die "no loop device on the ring of $1"
	defer "'$TOP/build/helpers/tagring' -r $n"
	[ -b /dev/loop$n ] || { mknod /dev/loop$n b 7 "$n"; defer "rm -f /dev/loop$n"; }
	LOOP_MINOR=$n loopdev 64
}

# diskstat NAME FIELD: FIELD counts from 1 after the name:
# 1 reads, 5 writes, 12 discards, 16 flushes completed (Documentation/admin-guide/iostats.rst)
# slowdev MS MB: a read-only loop device on a file of tests/helpers/slowfs.py,
# a FUSE filesystem whose reads each sleep MS; prints the device.  It runs
# in $(...), so it reports on stderr: L=$(slowdev 5 64) || exit
slowdev() {
	local dir L
	exec 3>&1 >&2
	/usr/bin/python3 -c 'import fusepy' 2>/dev/null || skip "needs python3-fusepy"
	dir=$(mktemp -d "$T/slow.XXXX")
	"$TOP/tests/helpers/slowfs.py" "$dir" "$2" "$1" ${3:-} >"$dir.log" 2>&1 3>&- &
	defer "umount $dir"
	for i in $(seq 50); do [ -f "$dir/disk" ] && break; sleep 0.1; done
	[ -f "$dir/disk" ] || die "slowfs did not mount: $(cat "$dir.log")"
	L=$(losetup -f --show $(case "${3:-}" in rw|store) ;; *) echo -r;; esac) "$dir/disk") || die losetup
	defer "losetup -d $L"
	echo "$L" >&3
}

diskstat() {
	awk -v d="$1" -v f="$2" '$3 == d { print $(3 + f) }' /proc/diskstats
}

# devt DISK: the disk's dev_t as the kernel's tracepoints give it
# (MAJOR << 20 | MINOR)
devt() {
	local mm
	mm=$(cat "/sys/class/block/${1#/dev/}/dev") || return 1
	echo $(( ${mm%:*} << 20 | ${mm#*:} ))
}

# start_iodig OUTFILE ARGS... : starts iodig, waits until it says it is attached
# (each its own ready file: with $RANDOM, a name used before in the test
# had its file already, and the next iodig was stopped before it caught
# SIGINT, which a background job starts with ignored: it ran on, seen once)
START_N=0
start_iodig() {
	local out=$1 ready="$T/ready.$BASHPID.$((++START_N))" i	# (BASHPID: a subshell counts apart)
	shift
	"$IODIG" "$@" --ready-file "$ready" >"$out" 2>"$out.err" &
	IODIG_PID=$!
	IODIG_OUT=$out
	PIDS+=("$IODIG_PID")
	for i in $(seq 1 200); do
		[ -s "$ready" ] && return 0
		kill -0 "$IODIG_PID" 2>/dev/null || { cat "$out.err"; die "iodig $* exited before it was ready"; }
		sleep 0.05
	done
	die "iodig $* not ready after 10 s"
}

# bpftrace_attached PID ERR TRACEPOINT...: wait (up to 10 s) until the
# kernel lists bpftrace PID's perf events on each tracepoint named (bpftrace
# prints "Attaching" before it attaches); ERR is its stderr, for the failure
bpftrace_attached() {
	local pid=$1 err=$2 tp all i
	shift 2
	for i in $(seq 100); do
		all=1
		for tp in "$@"; do
			bpftool perf list -j | jq -e --argjson p "$pid" --arg tp "$tp" \
				'any(.[]; .pid == $p and .tracepoint == $tp)' >/dev/null || { all=0; break; }
		done
		[ $all = 1 ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	die "bpftrace did not attach to $*: $(cat "$err")"
}

# The bracketing clock (tests/live/slow_complete.sh says why it is exact):
# bracket_first before iodig starts, bracket_clock TNS DEV... once it is
# attached; the load; bracket_stop, stop_iodig; then bracket_check JSON TNS:
# every request of the DEVs bpftrace timed (block_bio_queue to
# block_rq_complete, by disk and sector) at TNS ns or more has a record in
# JSON whose Q and C lie outside bpftrace's, and no record bpftrace timed is
# shorter.  Except where slow lost a request's slot to later bios of the
# same hash (both slots of its pair: docs/DESIGN.md, "slow is watched"): with no
# kernel Q stamp its Q is lost too, so it has a partial record timed from G,
# and the summary counts it in untracked; such records, at most untracked,
# are held to bpftrace's C only.  Needs 10 such requests; sets BR_IO, the
# records as [disk, sector, Q, C, ns, dominant, partial], and writes
# $T/due.phases, the dominant phase of each such request's record.
bracket_first() {
	local others
	# the order holds only if no perf event is on block_bio_queue already
	# (a bpftrace left over from a killed run put bpftrace's Q before
	# iodig's: a local run then found 200 records that did not bracket)
	# (perf events: fd_type tracepoint; iodig's tp_btf ones are raw_tracepoint)
	others=$(bpftool perf list -j | jq -c '[.[] | select(.tracepoint == "block_bio_queue" and .fd_type == "tracepoint") | .pid] | unique')
	[ "$others" = "[]" ] || die "perf events on block_bio_queue already (pids $others): bpftrace's Q program would run before iodig's"
	bpftrace -e 'tracepoint:block:block_rq_complete { @n = count(); }' > "$T/br0.out" 2> "$T/br0.out.err" & BR0=$!
	bpftrace_attached $BR0 "$T/br0.out.err" block_rq_complete
}

bracket_clock() {
	local tns=$1 d f="" key='args->dev, args->sector'
	shift
	BR_NAMES=
	for d in "$@"; do
		f="$f${f:+ || }args->dev == $(devt "$d")"
		BR_NAMES="$BR_NAMES $(devt "$d")=${d#/dev/}"
	done
	# @c: requests over a quarter of the threshold, [dev, sector, C]: ns
	BPFTRACE_MAP_KEYS_MAX=65536 bpftrace -e "tracepoint:block:block_bio_queue /$f/ { @q[$key] = nsecs; }
		tracepoint:block:block_rq_complete /($f) && @q[$key]/ {
			\$c = nsecs; \$d = \$c - @q[$key];
			if (\$d > $((tns / 4))) { @c[$key, \$c] = \$d; }
			delete(@q[$key]); }" > "$T/bt.out" 2> "$T/bt.out.err" & BRT=$!
	bpftrace_attached $BRT "$T/bt.out.err" block_bio_queue block_rq_complete
}

bracket_stop() {
	bpftrace_stop "$BRT" "$T/bt.out" || die "bpftrace: $(cat "$T/bt.out.err")"
	bpftrace_stop "$BR0" "$T/br0.out"
	grep -q '^Lost' "$T/bt.out" && die "bpftrace lost events: $(grep ^Lost "$T/bt.out")"
	return 0
}

bracket_check() {
	local json=$1 tns=$2 brackets by_key due missed short verified unq untracked
	awk -F'[][, :]+' -v names="$BR_NAMES" 'BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); nm[kv[1]] = kv[2] } }
		$1 == "@c" { printf "%s[\"%s\",%s,%.0f,%s,%s]", k++ ? "," : "[", nm[$2], $3, $4 - $5, $4, $5 } END { print k ? "]" : "[]" }' \
		"$T/bt.out" > "$T/bt.json"
	BR_IO=$T/io.json
	jq -s -c '[.[] | select(.type == "request") | [.disk, .sector, .ts_ns - .q2c_ns, .ts_ns, .q2c_ns, .dominant, .partial]]' "$json" > "$BR_IO"
	# a record brackets bpftrace's time of the same request: the same disk
	# and sector, its Q no later, its C no earlier (and within 10 ms: a
	# sector comes back about every 0.2 s under these loads); each side by
	# disk and sector, so a check looks only at the other side's same ones
	brackets='(.[0] == $b[0] and .[1] == $b[1] and .[2] <= $b[2] and .[3] >= $b[3] and .[3] - $b[3] <= 10000000)'
	by_key='def by_key: group_by(.[0:2]) | map({key: (.[0][0:2] | tostring), value: .}) | from_entries;
		def same($ix): $ix[.[0:2] | tostring] // [];'
	jq -c --argjson t "$tns" '[.[] | select(.[4] >= $t)]' "$T/bt.json" > "$T/due.json"
	due=$(jq length "$T/due.json")
	[ "$due" -ge 10 ] || die "only $due requests of $tns ns or more by bpftrace's clock: the load made too few to tell"
	missed=$(jq -c --slurpfile io "$BR_IO" "$by_key (\$io[0] | by_key) as \$ix |
		[.[] | . as \$b | select(any(same(\$ix)[]; $brackets) | not)]" "$T/due.json")
	# a partial record from G (its Q later than bpftrace's), its C bracketing
	unq=$(jq -c --slurpfile io "$BR_IO" "$by_key (\$io[0] | by_key) as \$ix |
		[.[] | . as \$b | select(any(same(\$ix)[]; .[6] == true and .[2] >= \$b[2] and .[3] >= \$b[3] and .[3] - \$b[3] <= 10000000) | not)]" <<< "$missed")
	[ "$unq" = "[]" ] || die "requests bpftrace timed at $tns ns or more with no record bracketing its time ([disk, sector, Q, C, ns]): $unq; summary $(jq -c 'select(.type == "summary")' "$json")"
	untracked=$(jq -s '[.[] | select(.type == "summary")][0].untracked' "$json")
	[ "$(jq length <<< "$missed")" -le "$untracked" ] ||
		die "$(jq length <<< "$missed") requests bpftrace timed at $tns ns or more have only a partial record ($missed), more than the $untracked the summary counts untracked"
	ok "each of the $due requests bpftrace timed at $tns ns or more has its record, bracketing bpftrace's Q and C$([ "$missed" = "[]" ] || echo "; $(jq length <<< "$missed") of them, their slot taken (untracked: $untracked), partial from G, bracketing its C: $missed")"
	short=$(jq -c --slurpfile bt "$T/bt.json" "$by_key (\$bt[0] | by_key) as \$ix |
		[.[] | select(.[6] != true) | . as \$r | select(any(same(\$ix)[]; . as \$b | \$r | $brackets) | not) |
		select(any(same(\$ix)[]; .[3] <= \$r[3] and \$r[3] - .[3] <= 10000000))]" "$BR_IO")
	[ "$short" = "[]" ] || die "records shorter than bpftrace's time of their request: $short"
	verified=$(jq -c --slurpfile bt "$T/bt.json" "$by_key (\$bt[0] | by_key) as \$ix |
		[.[] | . as \$r | select(any(same(\$ix)[]; . as \$b | \$r | $brackets))] | length" "$BR_IO")
	ok "$verified of $(jq length "$BR_IO") records bracket bpftrace's time of their request (the others bpftrace timed under $((tns / 4)) ns, or on other disks)"
	# for the caller: the dominant phase of each due request's record
	jq -c --slurpfile io "$BR_IO" "$by_key (\$io[0] | by_key) as \$ix |
		[.[] | . as \$b | same(\$ix)[] | select($brackets) | .[5]]" "$T/due.json" > "$T/due.phases"
}

# bpftrace_stop PID OUT: SIGINT to a bpftrace writing OUT, and again while
# OUT holds no more than its "Attaching" line: bpftrace 0.17 once let a
# SIGINT go by in CI and slept on (a second one ended it).  Never again once
# it prints its maps: a SIGINT then cuts them short.
bpftrace_stop() {
	local i
	kill -INT "$1"
	for i in $(seq 150); do
		kill -0 "$1" 2>/dev/null || break
		[ $((i % 20)) = 0 ] && [ "$(wc -l < "$2")" -le 1 ] && kill -INT "$1"
		sleep 0.1
	done
	wait "$1"
}

# stop_iodig: SIGINT, wait, the exit status must be 0
# stop_iodig_timed: stop_iodig, and the ms from SIGINT to its exit in STOP_MS
stop_iodig_timed() {
	local t0
	t0=$(date +%s%N)
	stop_iodig
	STOP_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

stop_iodig() {
	# (quiet: an iodig that ended by itself, as func -p does when its
	# process exits, is gone already, and wait still gives its status)
	kill -INT "$IODIG_PID" 2>/dev/null
	wait "$IODIG_PID"
	local rc=$?
	PIDS=("${PIDS[@]/$IODIG_PID}")
	[ "$rc" = 0 ] || die "iodig exited $rc after SIGINT: $(tail -c 600 "$IODIG_OUT.err" 2>/dev/null) / its output ends: $(tail -c 400 "$IODIG_OUT" 2>/dev/null)"
}

# settle DEV: wait (up to 10 s) until DEV completes nothing for 0.5 s, so a
# count read after tracing stops is the count while it ran (a file system's
# journal commits a little after sync returns)
settle() {
	local n=${1#/dev/} a b i
	for i in $(seq 20); do
		a=$(cat /sys/block/$n/stat); sleep 0.5; b=$(cat /sys/block/$n/stat)
		[ "$a" = "$b" ] && return 0
	done
	die "$n never went idle"
}

# end_iodig: wait for the last iodig start_iodig started to end by itself
# (a run of SECONDS); its exit status must be 0
end_iodig() {
	wait "$IODIG_PID"
	local rc=$?
	PIDS=("${PIDS[@]/$IODIG_PID}")
	[ "$rc" = 0 ] || die "iodig exited $rc: $(tail -c 600 "$IODIG_OUT.err" 2>/dev/null)"
}

# load NAME MODE ARGS...: a tests/helpers/whyload.py waiting for $T/go.NAME;
# its pid in $T/pid.NAME, its job in $JOB_NAME, its clock in $T/go.NAME.clock
load() {
	local name=$1
	shift
	"$TOP/tests/helpers/whyload.py" "$T/go.$name" "$@" > "$T/pid.$name" &
	eval "JOB_$name=$!"
	for i in $(seq 50); do [ -s "$T/pid.$name" ] && break; sleep 0.05; done
}

# ordered_fs DIR: an ext4 loop device mounted at DIR with nodelalloc (a
# bulk writer's blocks are allocated as it writes, so each journal commit
# writes its data first: data=ordered), and one python3 process rewriting
# 64 MiB of DIR/bulk over and over until $T/stop.bulk: BULK is its pid.
ordered_fs() {
	local L
	L=$(loopdev 256)
	mkfs.ext4 -q "$L" || die mkfs
	mkdir "$1" && mount -o nodelalloc "$L" "$1" || die mount
	defer "umount $1"
	python3 -c '
import os, sys
buf = bytes(1 << 20)
while not os.path.exists(sys.argv[1]):
    with open(sys.argv[2], "wb") as f:
        for i in range(64):
            f.write(buf)
' "$T/stop.bulk" "$1/bulk" &
	BULK=$!
	defer "touch $T/stop.bulk"
	JOURNAL=jbd2/${L#/dev/}-8
	# under way before the caller's load starts (python's start is slow on
	# a busy machine: a log writer once ran its 40 calls before it wrote)
	for i in $(seq 200); do [ "$(stat -c %s "$1/bulk" 2>/dev/null || echo 0)" -ge $((8 << 20)) ] && return; sleep 0.05; done
	die "the bulk writer wrote no 8 MiB in 10 s"
}

# io_cgroup: a new cgroup in the hierarchy that carries the io (v2) or
# blkio (v1) controller, as $CG, removed at the test's end
io_cgroup() {
	if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		CG=/sys/fs/cgroup/iodig-test-$$
		echo +io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	elif [ -d /sys/fs/cgroup/blkio ]; then
		CG=/sys/fs/cgroup/blkio/iodig-test-$$
	else
		skip "no cgroup hierarchy with the io/blkio controller"
	fi
	mkdir "$CG" || die "mkdir $CG"
	defer "rmdir $CG"
}

# in_cgroup CMD [ARGS...]: CMD run in $CG (io_cgroup) from its first
# instruction, so all of its I/O is charged there
in_cgroup() {
	bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' in_cgroup "$CG" "$@"
}

# tracefs_mounted: /sys/kernel/tracing mounted for the test's own use of
# tracefs (instances, trace_pipe; this kernel does not mount it at boot),
# and unmounted at the test's end if the test mounted it
tracefs_mounted() {
	mountpoint -q /sys/kernel/tracing && return
	mount -t tracefs nodev /sys/kernel/tracing || die "mounting tracefs"
	defer "umount -l /sys/kernel/tracing"
}

# tracefs_unmounted: tracefs taken down for a check of a machine without it
# (mounted before, by a bench script, a user or tracefs_mounted), and put
# back at the test's end.  Where debugfs is mounted, a walk into
# /sys/kernel/debug/tracing mounts tracefs there again by itself, and iodig
# looks there too (a CI run failed sysfs_writes so, 2026-12-02): debugfs
# goes as well, and comes back at the end.
tracefs_unmounted() {
	if mountpoint -q /sys/kernel/tracing; then
		umount /sys/kernel/tracing || die "tracefs is mounted and busy: cannot check a machine without it"
		defer "mount -t tracefs nodev /sys/kernel/tracing"
	fi
	if [ "$(stat -f -c %T /sys/kernel/debug 2>/dev/null)" = debugfs ]; then
		grep -q ' /sys/kernel/debug/tracing ' /proc/self/mounts && { umount /sys/kernel/debug/tracing ||
			die "tracefs is mounted at /sys/kernel/debug/tracing and busy: cannot check a machine without it"; }
		umount /sys/kernel/debug || die "debugfs is busy: its tracing would mount tracefs again"
		defer "mount -t debugfs none /sys/kernel/debug"
	fi
	return 0
}

# throttled_fs MIB [ASLEEP_MS]: an ext4 loop device mounted at $T/m whose bdi
# is held to a strict 1 MiB of dirty pages (max_bytes: 6.2+), a tracefs
# instance whose writeback:balance_dirty_pages event keeps that bdi's calls
# (enabled by "echo 1 > $E/enable"), and tests/helpers/dirtier.py waiting
# for $T/go to write MIB MiB to $T/m/f (and on, until its write() calls took
# ASLEEP_MS ms: how hard the kernel throttles a writer depends on what it
# learnt of the device's writeback before, in an earlier test).  Sets A (the
# device), a (its name), dev (major:minor), I, E, J (the writer's job) and P
# (its pid).
throttled_fs() {
	local B i
	A=$(loopdev 256); a=${A#/dev/}; dev=$(cat /sys/block/$a/dev)
	mkfs.ext4 -q "$A" || die mkfs
	mkdir "$T/m" && mount "$A" "$T/m" || die mount
	defer "umount $T/m"
	B=/sys/class/bdi/$dev
	[ -w "$B/max_bytes" ] || die "no $B/max_bytes (6.2+)"
	# (a loop device's bdi outlives losetup -d: put its limits back)
	defer "echo $(cat "$B/strict_limit") > $B/strict_limit; echo $(cat "$B/max_ratio") > $B/max_ratio"
	echo 1 > "$B/strict_limit" && echo 1048576 > "$B/max_bytes" || die "setting $B"
	tracefs_mounted
	I="/sys/kernel/tracing/instances/iodig-throttle-$$"
	mkdir "$I" || die "no tracefs instance $I"
	defer "rmdir $I"
	E="$I/events/writeback/balance_dirty_pages"
	echo "bdi == \"$dev\"" > "$E/filter" || die "tracefs filter"
	"$TOP/tests/helpers/dirtier.py" "$T/m/f" "$1" "$T/go" ${2:-} > "$T/d.out" &
	J=$!
	for i in $(seq 50); do [ -s "$T/d.out" ] && break; sleep 0.05; done
	P=$(head -1 "$T/d.out")
}

# doctor_kind FILE RANK: the kind of doctor's finding of that rank (--json)
doctor_kind() { jq -r --argjson r "$2" 'select(.rank == $r) | .kind' "$1"; }
# doctor_of FILE KIND JQ: JQ of doctor's first finding of KIND
doctor_of() { jq -r --arg k "$2" "select(.kind == \$k) | $3" "$1" | head -1; }

# stop_all_iodig: stop_iodig for every iodig start_iodig started
stop_all_iodig() {
	local p
	for p in "${PIDS[@]}"; do
		[ -n "$p" ] && { IODIG_PID=$p; stop_iodig; }
	done
	PIDS=()
}

# stall_load DEV IOS: IOS random 4k direct reads and writes, then buffered
# writes while the elevator is switched twice (requests stall in Q2G, and
# the scheduler writes name the stall)
stall_load() {
	local n=${1#/dev/} f
	fio --name=w --filename="$1" --direct=1 --rw=randrw --bs=4k --size=100M --number_ios="$2" \
	    --ioengine=libaio --iodepth=4 >/dev/null || die fio
	fio --name=s --filename="$1" --rw=write --bs=4k --size=8M --ioengine=psync --end_fsync=1 >/dev/null &
	f=$!
	echo mq-deadline > /sys/block/$n/queue/scheduler
	echo none > /sys/block/$n/queue/scheduler
	wait $f || die "the buffered fio writer failed"
	sleep 0.3
}

# flip_scheduler DEV TIMES PIDFILE: a subshell switches DEV's scheduler to
# mq-deadline and back TIMES times, 0.1 s apart (each switch freezes the
# queue); its pid, the writer a stall names, goes to PIDFILE
flip_scheduler() {
	local n=${1#/dev/}
	(
		echo "$BASHPID" > "$3"
		for i in $(seq "$2"); do
			echo mq-deadline > /sys/block/$n/queue/scheduler; sleep 0.1
			echo none > /sys/block/$n/queue/scheduler; sleep 0.1
		done
	)
}

# own_ids PID FIELD: the ids (prog_id or link_id) in PID's fds' fdinfo, a
# comma list: what this process holds, not what the machine has (the
# suite's other lane runs iodig too: a CI run counted another lat's)
own_ids() {
	grep -h "^$2:" /proc/$1/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un | paste -sd, -
}

# ids_left KIND IDS: how many of IDS (own_ids) `bpftool KIND show` still lists
ids_left() {
	bpftool "$1" show -j | jq --argjson ids "[$2]" '[.[] | select(.id as $i | $ids | index($i))] | length'
}

# released WHO LIDS PIDS: none of the links LIDS (own_ids, read while it
# ran) left once it exited, and none of the programs PIDS 1 s after (the
# kernel frees a program a grace period after its last link went)
released() {
	local i
	assert_eq "$(ids_left link "$2")" 0 "$1's BPF links once it exited ($(echo "$2" | tr ',' '\n' | wc -l) while it ran)"
	for i in $(seq 20); do [ "$(ids_left prog "$3")" = 0 ] && break; sleep 0.05; done
	assert_eq "$(ids_left prog "$3")" 0 "$1's BPF programs 1 s after it exited ($(echo "$3" | tr ',' '\n' | wc -l) while it ran)"
}

# own_progs PID PREFIX: how many of PID's BPF programs are named PREFIX*
# (their ids from its own fds, so another iodig on the machine is not
# counted: a CI run saw one's 10)
own_progs() {
	bpftool prog show -j | jq --argjson ids "[$(own_ids "$1" prog_id)]" --arg p "$2" \
		'[.[] | select((.name | startswith($p)) and (.id as $i | $ids | index($i)))] | length'
}

# own_links PID NAME: how many of PID's BPF links hold a program named NAME
# (attached now, by this process: the ids from its own fds)
own_links() {
	local f ids
	ids=$(for f in /proc/$1/fdinfo/*; do
		grep -q '^link_type:' "$f" 2>/dev/null && awk '/^prog_id:/ {print $2}' "$f"
	done | sort -u | paste -sd, -)
	bpftool prog show -j | jq --argjson ids "[${ids}]" --arg p "$2" '[.[] | select(.name == $p and (.id as $i | $ids | index($i)))] | length'
}

# map_mem PID NAME: "map_flags memlock max_entries value_size" of PID's BPF
# map NAME, as the kernel gives them (/proc/PID/fdinfo: memlock is its own
# account of the map's memory, by what the map holds where it is not
# preallocated)
map_mem() {
	local fd id
	for fd in /proc/$1/fdinfo/*; do
		id=$(awk '/^map_id:/ { print $2 }' "$fd" 2>/dev/null)
		[ -n "$id" ] && [ "$(bpftool -j map show id "$id" | jq -r .name)" = "$2" ] || continue
		awk '/^map_flags:/ { f = $2 } /^memlock:/ { m = $2 } /^max_entries:/ { e = $2 } /^value_size:/ { v = $2 }
		     END { print f, m, e, v }' "$fd"
		return 0
	done
	return 1
}

# jsum FILE JQ_FILTER: sum of .count over hist objects that match the filter
jcount() {
	jq -s "[.[] | select(.type == \"hist\") | select($2) | .count] | add // 0" "$1"
}

# why_vs_clock JSON PID CLOCKFILE MIN_MS WHAT [SLACK_MS]: each call record of PID in
# iodig why's JSON against the helper's own CLOCK_MONOTONIC time of the same
# call (tests/helpers/whyload.py writes CLOCKFILE): it starts inside the
# helper's interval, its wall_ns is the helper's time within 2% or 50 us
# (the helper's clock reads sit outside the system call), |unaccounted| is
# at most 2% of it, and every helper call of MIN_MS or more has its record
# (but for one the helper was preempted in).
# SLACK_MS: time the helper may lose outside the call (runnable beside a
# spinner), allowed between the two clocks; 0 unless given
why_vs_clock() {
	python3 - "$@" <<'PY' || die "$5: iodig why against the helper's own clock"
import json, sys
path, pid, clockfile, min_ms, what = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
slack = float(sys.argv[6]) * 1e6 if len(sys.argv) > 6 else 0
recs = []
for line in open(path):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") == "call" and r.get("pid") == pid:
        recs.append(r)
clk = [tuple(int(x) for x in l.split()) for l in open(clockfile) if l.strip()]
bad, worst_wall, worst_un = [], 0.0, 0.0
matched, preempted = set(), 0
for r in recs:
    hits = [i for i, c in enumerate(clk) if c[0] <= r["ts_ns"] <= c[1]]
    if len(hits) != 1:
        bad.append("call at %d inside %d helper calls" % (r["ts_ns"], len(hits)))
        continue
    i = hits[0]
    matched.add(i)
    own = clk[i][1] - clk[i][0]
    diff = own - r["wall_ns"]
    if r["wall_ns"] > own:
        bad.append("wall %d ns, more than the helper's %d ns" % (r["wall_ns"], own))
    elif diff > max(0.02 * own, 50000) + slack:
        # the helper's thread was preempted in its timed window: the time
        # beyond the call may be the wait for a CPU between its clock and
        # the system call (Python between them takes tens of us otherwise);
        # or, not switched out, it was off its CPU all the same outside the
        # call (its vCPU taken by the host, interrupts): its thread clock
        # (the 5th column) less the call's own CPU is its time on CPU
        # outside the call, and what the window has beyond that, the time it
        # was not (two CI runs: 0.64 and 0.7 ms, with no switch)
        p = r["parts"]
        off_out = (own - clk[i][4]) - (r["wall_ns"] - p["on_cpu_ns"]) if len(clk[i]) > 4 else 0
        if clk[i][3] > 0 or off_out >= diff - max(0.02 * own, 50000) - slack:
            preempted += 1
        else:
            bad.append("wall %d ns, the helper's %d ns (off CPU outside the call %d ns)" % (r["wall_ns"], own, off_out))
    else:
        worst_wall = max(worst_wall, diff / own if own else 0)
    un = r["parts"]["unaccounted_ns"]
    if abs(un) > 0.02 * r["wall_ns"]:
        bad.append("unaccounted %d ns of %d" % (un, r["wall_ns"]))
    worst_un = max(worst_un, abs(un) / r["wall_ns"] if r["wall_ns"] else 0)
    if sum(r["parts"].values()) != r["wall_ns"]:
        bad.append("parts + unaccounted %d != wall %d" % (sum(r["parts"].values()), r["wall_ns"]))
# (a helper preempted in its window may have waited for its CPU outside
# the call: beside a spinner 116 ms between the call's return and the
# helper's clock, the call itself under MIN_MS)
missing = [i for i, c in enumerate(clk) if (c[1] - c[0]) >= min_ms * 1.1e6 + slack and i not in matched
           and not (len(c) > 3 and c[3] > 0)]
if missing:
    bad.append("%d helper calls of %g ms or more without a record" % (len(missing), min_ms))
if not recs:
    bad.append("no call record of pid %d" % pid)
if bad:
    print("FAIL: %s: %s" % (what, "; ".join(bad[:5])))
    sys.exit(1)
print("  ok: %s: %d calls, wall within %.2f%% of the helper's own clock%s, |unaccounted| <= %.2f%%"
      % (what, len(recs), 100 * worst_wall,
         " (%d more: the helper preempted or off its CPU outside the call)" % preempted if preempted else "", 100 * worst_un))
PY
}

# free_port: a loopback TCP port free now
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# prometheus_start HOST:PORT: a real Prometheus (Debian's) scraping HOST:PORT
# every second as job iodig, on a free loopback port ($PP), until the test
# ends; returns once it has scraped it (up = 1).  prom_q QUERY: its instant
# value (the first), or empty.
prometheus_start() {
	PP=$(free_port)
	cat > "$T/prom.yml" <<YML
global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: iodig
    static_configs: [ { targets: ["$1"] } ]
YML
	prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$PP" \
		> "$T/prom.log" 2>&1 &
	defer "kill $!; wait $! 2>/dev/null"
	for i in $(seq 100); do [ "$(prom_q 'up{job="iodig"}')" = 1 ] && return 0; sleep 0.2; done
	die "Prometheus never scraped iodig: $(tail -5 "$T/prom.log")"
}
prom_q() {
	curl -s --get "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'
}
