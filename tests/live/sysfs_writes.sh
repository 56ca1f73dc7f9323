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
