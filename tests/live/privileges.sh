# Least privilege: lat, slow, export and why run as user nobody holding only
# CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH (what iodig-export.service
# grants), and count what the kernel counts (/proc/diskstats, dd's own
# number of writes); a capability missing is named in one line: no
# CAP_DAC_READ_SEARCH (tracefs root's alone), no CAP_SYS_ADMIN (uprobes), none.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
L=$(loopdev 64); d=${L#/dev/}
# tracefs as a service finds it (systemd mounts it at boot, mode 0700)
tracefs_mounted
[ "$(stat -c %a /sys/kernel/tracing)" = 700 ] || die "tracefs mode $(stat -c %a /sys/kernel/tracing), not 700"
chmod 1777 "$T"			# nobody writes its ready files here
# as CAPS, user nobody: a wrapper start_iodig runs (exec keeps the pid)
as() {
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all%s --ambient-caps=-all%s --bounding-set=-all%s %s/iodig "$@"\n' \
		"$1" "$1" "$1" "$TOP" > "$T/as"
	chmod 755 "$T/as"
	IODIG=$T/as
}
SVC=",+bpf,+perfmon,+dac_read_search"
as "$SVC"
"$IODIG" probe >/dev/null || die "probe as nobody"
[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all$SVC --ambient-caps=-all$SVC --bounding-set=-all$SVC sh -c 'id -u; grep CapEff /proc/self/status')" = "$(printf '65534\nCapEff:\t000000c000000004')" ] \
	|| die "the wrapper does not give nobody exactly CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH"

# lat: every read dd makes, as diskstats counts them, nothing said lost
start_iodig "$T/lat.out" lat --json -d "$d"
r0=$(diskstat "$d" 1)
dd if="$L" of=/dev/null bs=4k count=500 iflag=direct status=none
sleep 0.3
stop_iodig
assert_seen "$(jq -s '[.[] | select(.type == "hist") | .count] | add' "$T/lat.out")" "$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/lat.out")" \
	"$(( $(diskstat "$d" 1) - r0 ))" "lat as nobody: reads = /proc/diskstats"
grep -q "skipped is not measured" "$T/lat.out.err" && die "lat as nobody could not measure skipped: $(cat "$T/lat.out.err")"

# slow 0: one record per request, and a queue write named
start_iodig "$T/slow.out" slow --json 0 -d "$d"
r0=$(diskstat "$d" 1)
dd if="$L" of=/dev/null bs=4k count=300 iflag=direct status=none
echo mq-deadline > "/sys/block/$d/queue/scheduler"; echo none > "/sys/block/$d/queue/scheduler"
sleep 0.3
stop_iodig
assert_seen "$(jq -s '[.[] | select(.type == "request" and .op == "read")] | length' "$T/slow.out")" "$(jq -s '[.[] | select(.type == "summary") | .skipped] | add' "$T/slow.out")" \
	"$(( $(diskstat "$d" 1) - r0 ))" "slow as nobody: read records = /proc/diskstats"
assert_eq "$(jq -s '[.[] | select(.type == "queue_write" and .attr == "scheduler")] | length >= 2' "$T/slow.out")" true "slow as nobody: the scheduler writes seen"

# export: the exporter's read count is the kernel's
EP=$(free_port)
start_iodig "$T/exp.out" export --listen "127.0.0.1:$EP" -d "$d"
r0=$(diskstat "$d" 1)
dd if="$L" of=/dev/null bs=4k count=200 iflag=direct status=none
sleep 1.3	# the histograms are collected every second
curl -sf "http://127.0.0.1:$EP/metrics" > "$T/metrics" || die "no /metrics from the exporter as nobody"
stop_iodig
assert_eq "$(awk -v d="$d" '$1 ~ "^iodig_request_seconds_count" && $1 ~ "disk=\"" d "\"" && $1 ~ "op=\"read\"" && $1 ~ "phase=\"Q2C\"" { n += $2 } END { print n + 0 }' "$T/metrics")" \
	"$(( $(diskstat "$d" 1) - r0 ))" "export as nobody: reads timed (iodig_request_seconds_count) = /proc/diskstats' increase"

# why: each of dd's 20 direct writes, a call with its own request
start_iodig "$T/why.out" why --json 0 --comm dd --syscalls write
dd if=/dev/zero of="$L" bs=4k count=20 oflag=direct status=none
sleep 0.3
stop_iodig
assert_eq "$(jq -s '[.[] | select(.type == "call" and .syscall == "write" and (.requests | length) == 1)] | length' "$T/why.out")" 20 "why as nobody: dd's 20 writes, each with its request"

# what is missing, named in one line
as ",+bpf,+perfmon"
"$IODIG" exec 2>"$T/e" >/dev/null; assert_eq "$?" 1 "exec without CAP_DAC_READ_SEARCH: exit"
grep -q "CAP_DAC_READ_SEARCH is missing" "$T/e" && [ "$(wc -l < "$T/e")" = 1 ] || die "exec said: $(cat "$T/e")"
# lat needs no tracefs: skipped's count of the kernel's is /proc/diskstats
timeout -s INT 5 "$IODIG" lat 1 1 2>"$T/e" >/dev/null || die "lat without CAP_DAC_READ_SEARCH: $(cat "$T/e")"
grep -q "skipped is not measured" "$T/e" && die "lat without CAP_DAC_READ_SEARCH: $(cat "$T/e")"
ok "without CAP_DAC_READ_SEARCH: exec fails naming it, lat runs and measures skipped"
LIBC=$(ldd /bin/true | awk '$1 ~ /^libc\.so/ { print $3 }')
"$IODIG" func "$LIBC:write" 1 1 2>"$T/e" >/dev/null; assert_eq "$?" 1 "func on a uprobe without CAP_SYS_ADMIN: exit"
grep -q "uprobes need CAP_SYS_ADMIN" "$T/e" && [ "$(wc -l < "$T/e")" = 1 ] || die "func said: $(cat "$T/e")"
as ""
"$IODIG" lat 1 1 2>"$T/e" >/dev/null; assert_eq "$?" 1 "lat with no capability: exit"
grep -q "missing CAP_BPF and CAP_PERFMON" "$T/e" && [ "$(wc -l < "$T/e")" = 1 ] || die "lat said: $(cat "$T/e")"
ok "with no capability: one line naming CAP_BPF and CAP_PERFMON"

# tracefs not mounted: a service without CAP_SYS_ADMIN cannot mount it, and
# says so in one line; root mounts it itself, so that is no reason for any
# of root's failures (a program the verifier refused, loaded before that
# mount, was once blamed on tracefs), and takes it down again at its end
tracefs_unmounted
as "$SVC"
"$IODIG" exec 2>"$T/e" >/dev/null; assert_eq "$?" 1 "exec as the service, tracefs not mounted: exit"
grep -q "tracefs is not mounted, and mounting it needs CAP_SYS_ADMIN" "$T/e" && [ "$(wc -l < "$T/e")" = 1 ] \
	|| die "exec as the service, tracefs not mounted, said: $(cat "$T/e")"
timeout --preserve-status -s INT 3 "$TOP/iodig" exec >/dev/null 2>"$T/e" || die "exec as root, tracefs not mounted: $(cat "$T/e")"
mountpoint -q /sys/kernel/tracing && die "exec as root left tracefs mounted"
ok "tracefs not mounted: the service is told to mount it, root mounts it and takes it down again"
