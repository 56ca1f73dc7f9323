# iodig sysfs: every queue attribute write, with writer, disk, attribute,
# value and duration; -d keeps to one disk.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 32); B=$(loopdev 32); a=${A#/dev/}; b=${B#/dev/}
start_iodig "$T/all.json" sysfs --json
start_iodig "$T/a.json" sysfs -d "$a" --json
pid_all=${PIDS[0]}
(
	echo "$BASHPID" > "$T/writer"
	echo 64 > /sys/block/$a/queue/nr_requests
	echo mq-deadline > /sys/block/$a/queue/scheduler
	echo 20 > /sys/block/$a/queue/iosched/fifo_batch
	echo none > /sys/block/$a/queue/scheduler
	echo 256 > /sys/block/$b/queue/read_ahead_kb
	echo bogus > /sys/block/$b/queue/scheduler 2>/dev/null
)
sleep 0.2
stop_iodig
IODIG_PID=$pid_all; stop_iodig
w=$(cat "$T/writer")
assert_eq "$(jq -c -s "[.[] | select(.pid == $w) | [.disk, .attr, .value]]" "$T/all.json")" \
	"[[\"$a\",\"nr_requests\",\"64\"],[\"$a\",\"scheduler\",\"mq-deadline\"],[\"$a\",\"fifo_batch\",\"20\"],[\"$a\",\"scheduler\",\"none\"],[\"$b\",\"read_ahead_kb\",\"256\"],[\"$b\",\"scheduler\",\"bogus\"]]" \
	"writes in order: disk, attribute, value"
assert_eq "$(jq -s "[.[] | select(.pid == $w and .disk == \"$a\")] | length" "$T/a.json")" 4 "-d $a keeps its 4 writes"
assert_eq "$(jq -s "[.[] | select(.disk != \"$a\")] | length" "$T/a.json")" 0 "-d $a drops other disks"
assert_eq "$(jq -s "[.[] | select(.attr == \"scheduler\" and .value == \"bogus\")][0].ret" "$T/all.json")" -22 "a refused write carries -EINVAL"
assert_eq "$(jq -s "[.[] | select(.pid == $w and .ppid == $$ and .comm == \"bash\")] | length" "$T/all.json")" 6 "writer's comm, pid and parent"
# switching the elevator freezes the queue; a read_ahead_kb write does not
jq -e -s '([.[] | select(.attr == "scheduler" and .value == "mq-deadline")][0].duration_ns) >
	 10 * ([.[] | select(.attr == "read_ahead_kb")][0].duration_ns)' "$T/all.json" >/dev/null ||
	die "scheduler write not longer than read_ahead_kb's: $(cat "$T/all.json")"
ok "a scheduler switch takes over 10x a read_ahead_kb write"

# pwrite(2), writev(2), pwritev(2) and pwritev2(2) are writes too
start_iodig "$T/v.json" sysfs -d "$a" --json
python3 - "/sys/block/$a/queue/read_ahead_kb" <<'PY' || die "python writes"
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, b"132", 0)
os.writev(fd, [b"136"])
os.pwritev(fd, [b"140"], 0)
os.pwritev(fd, [b"144"], 0, os.RWF_DSYNC)   # pwritev2
os.close(fd)
PY
stop_iodig
assert_eq "$(jq -r -s '[.[] | select(.attr == "read_ahead_kb") | .value] | join(" ")' "$T/v.json")" "132 136 140 144" "pwrite, writev, pwritev, pwritev2 seen with their values"
assert_eq "$(jq -s '[.[] | select(.attr == "read_ahead_kb" and .ret > 0)] | length' "$T/v.json")" 4 "each with its return value"

# slow --no-queue-writes loads no watcher: no program on the write syscalls
start_iodig "$T/n.txt" slow --no-queue-writes
assert_eq "$(own_progs "$IODIG_PID" life_sysfs_)" 0 "watcher programs loaded by slow --no-queue-writes"
stop_iodig
start_iodig "$T/y.txt" slow
assert_eq "$(own_progs "$IODIG_PID" life_sysfs_)" 10 "watcher programs loaded by slow (5 syscalls, entry and exit)"
stop_iodig

# tracefs: iodig mounts it for the syscall tracepoints and unmounts it after
tracefs_unmounted
start_iodig "$T/t.txt" sysfs
mountpoint -q /sys/kernel/tracing || die "tracefs not mounted while sysfs runs"
stop_iodig
mountpoint -q /sys/kernel/tracing && die "tracefs left mounted by iodig"
ok "tracefs mounted while needed, unmounted after"
