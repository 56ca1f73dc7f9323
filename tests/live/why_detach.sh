# iodig why's way into system calls, the raw sys_enter/sys_exit, which also
# watch queue-attribute writes (no syscall event loaded):
#  - Ctrl-C under a system-call load: the summary out and the process gone
#    within 0.5 s, and no BPF program or link of it left (through each
#    call's own event, 66 of them, this took 3 s on 6.18: each event's
#    detach waits for grace periods under the kernel's event_mutex);
#  - the watcher sees a queue attribute written by each of write,
#    pwrite64, writev, pwritev and pwritev2, each value as the helper wrote
#    it (trailing blanks, which the kernel strips, tell the calls apart),
#    through doctor (why's engine) and its recording.
# (why_io.sh's first case runs through each call's own events,
# --syscall-events, against the helper's clock.)
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftool >/dev/null || skip "needs bpftool"

dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null & DD=$!
defer "kill $DD 2>/dev/null"
start_iodig "$T/w.json" why --json
[ "$(own_progs "$IODIG_PID" why_)" -gt 0 ] || die "why's programs not loaded while it runs"
pids=$(own_ids "$IODIG_PID" prog_id); lids=$(own_ids "$IODIG_PID" link_id)
[ -n "$pids" ] && [ -n "$lids" ] || die "no programs or links held by why"
# the watcher learnt sysfs files' f_op from iodig's own read of one (a write
# to anything else is then let go after two helper calls, not four)
fops=$(bpftool map dump name why_bpf.bss | jq '[.. | objects | .qw_fops? // empty][0]')
[ -n "$fops" ] && [ "$fops" != 0 ] && [ "$fops" != null ] || die "the watcher did not learn sysfs files' f_op: '$fops'"
sleep 1
stop_iodig_timed
kill $DD
jq -e -s '[.[] | select(.type == "summary")] | length == 1' "$T/w.json" >/dev/null || die "no summary after SIGINT"
[ "$STOP_MS" -le 500 ] || die "why took $STOP_MS ms from SIGINT to exit (want 500 at most)"
ok "why (every process, dd writing 1-byte blocks): summary out and exited $STOP_MS ms after SIGINT"
released why "$lids" "$pids"

# ---- the watcher, each write call ----
L=$(loopdev 64); n=${L#/dev/}
# a process that opened the attribute before doctor started (found in
# /proc/PID/fd), and its child, which inherits the fd: only processes that
# may write a queue attribute have their writes looked at (why.bpf.c)
python3 - "$n" "$T/go.h" > "$T/holder" 2>&1 <<'PY' & H=$!
import os, sys, time
fd = os.open("/sys/block/%s/queue/scheduler" % sys.argv[1], os.O_WRONLY)
print(os.getpid(), flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
assert os.write(fd, b"mq-deadline      ") == 17	# (6 blanks: the kernel strips them)
c = os.fork()
if c == 0:
    assert os.write(fd, b"none      ") == 10
    os._exit(0)
print(c, flush=True)
assert os.waitpid(c, 0)[1] == 0
PY
for i in $(seq 50); do [ -s "$T/holder" ] && break; sleep 0.05; done
start_iodig "$T/d.json" doctor -d "$n" --json --record "$T/d.rec" 2
touch "$T/go.h"; wait $H || die "the holder failed: $(cat "$T/holder")"
assert_eq "$(own_progs "$IODIG_PID" life_sysfs_) $(own_progs "$IODIG_PID" why_enter) $(own_progs "$IODIG_PID" why_sc_)" "0 1 0" \
	"doctor's programs: the engine's watcher on syscall events, why's raw sys_enter, why's syscall events"
python3 - "$n" > "$T/writer" <<'PY' || die "the attribute writer failed"
import os, sys
print(os.getpid(), flush=True)
path = "/sys/block/%s/queue/scheduler" % sys.argv[1]
calls = [lambda fd, b: os.write(fd, b), lambda fd, b: os.pwrite(fd, b, 0),
         lambda fd, b: os.writev(fd, [b]), lambda fd, b: os.pwritev(fd, [b], 0),
         lambda fd, b: os.pwritev(fd, [b], 0, os.RWF_DSYNC)]   # pwritev2
for k, call in enumerate(calls):
    for v in ("mq-deadline", "none"):
        fd = os.open(path, os.O_WRONLY)
        b = (v + " " * (k + 1)).encode()
        assert call(fd, b) == len(b)
        os.close(fd)
PY
end_iodig
w=$(cat "$T/writer")
"$IODIG" replay --json "$T/d.rec" > "$T/r.json" || die "replay of doctor's recording"
want='"mq-deadline " "none " "mq-deadline  " "none  " "mq-deadline   " "none   " "mq-deadline    " "none    " "mq-deadline     " "none     "'
got=$(jq -r -s "[.[] | select(.type == \"queue_write\" and .pid == $w and .attr == \"scheduler\" and .disk == \"$n\" and .ret == (.value | length)) | .value | @json] | join(\" \")" "$T/r.json")
assert_eq "$got" "$want" "python3[$w]'s writes by write, pwrite64, writev, pwritev, pwritev2, each with its value and return, in doctor's recording"
read -r hp hc <<<"$(tr '\n' ' ' < "$T/holder")"
got=$(jq -r -s "[.[] | select(.type == \"queue_write\" and .attr == \"scheduler\" and .disk == \"$n\" and (.pid == $hp or .pid == $hc)) | [.pid, .value]]" "$T/r.json" | jq -c .)
assert_eq "$got" "[[$hp,\"mq-deadline      \"],[$hc,\"none      \"]]" \
	"a write through an fd opened before doctor started, and its child's through the fd inherited"
