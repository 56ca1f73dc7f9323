#!/bin/sh
# Runs inside the systemd VM (tests/vm/systemd), as a oneshot unit once the
# system is up: the package installed with dpkg, the exporter and the flight
# recorder started by systemctl as their own user, their figures against
# /proc/diskstats, the package removed.  Prints "SD-OK what" or
# "SD-FAIL what: why" per check; the host wants every OK and no FAIL.
ok() { echo "SD-OK $*"; }
bad() { echo "SD-FAIL $*"; }
reads() { awk '$3 == "loop0" { print $4 }' /proc/diskstats; }
metric() {	# NAME LABEL-MATCH: the sum of the samples of NAME matching
	curl -s 127.0.0.1:9436/metrics | awk -v n="$1" -v m="$2" 'index($1, n "{") == 1 && $1 ~ m { s += $2 } END { print s + 0 }'
}
wait_for() {	# SECONDS COMMAND...: until it succeeds
	t=$1; shift
	while [ "$t" -gt 0 ]; do "$@" && return 0; sleep 1; t=$((t - 1)); done
	return 1
}
echo "=== SD GUEST UP $(uname -r), $(systemctl --version | head -1), up $(cut -d' ' -f1 /proc/uptime) s"
insmod /root/loop.ko max_loop=2 || bad "insmod loop"
truncate -s 64M /var/tmp/disk.img
losetup /dev/loop0 /var/tmp/disk.img || bad "losetup"

dpkg -i /root/iodig.deb > /tmp/dpkg.out 2>&1 && ok "dpkg -i" || bad "dpkg -i: $(cat /tmp/dpkg.out)"
iodig version | head -1
iodig probe > /tmp/probe.out 2>&1 && ok "iodig probe" || bad "probe: $(tail -3 /tmp/probe.out)"
out=$(systemd-analyze verify --man=no /usr/lib/systemd/system/iodig-export.service /usr/lib/systemd/system/iodig-record.service 2>&1)
[ -z "$out" ] && ok "systemd-analyze verify" || bad "systemd-analyze verify: $out"

# the exporter, as the unit says
systemctl start iodig-export || bad "systemctl start iodig-export"
if wait_for 60 curl -sf -o /dev/null 127.0.0.1:9436/metrics; then
	ok "/metrics served"
else
	bad "no /metrics"
	journalctl -u iodig-export --no-pager | tail -20
fi
P=$(systemctl show -p MainPID --value iodig-export)
u=$(ps -o user= -p "$P"); uid=$(awk '/^Uid:/ { print $3 }' /proc/$P/status)
[ "$u" = iodig ] && [ "$uid" != 0 ] && ok "runs as user iodig (uid $uid)" || bad "runs as '$u' (uid $uid)"
caps=$(awk '/^CapEff:/ { print $2 }' /proc/$P/status); bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/$P/status)
[ "$caps" = 000000c000000004 ] && [ "$bnd" = 000000c000000004 ] && ok "capabilities: CAP_BPF CAP_PERFMON CAP_DAC_READ_SEARCH alone" \
	|| bad "CapEff $caps CapBnd $bnd"
[ "$(awk '/^NoNewPrivs:/ { print $2 }' /proc/$P/status)" = 1 ] && ok "NoNewPrivs" || bad "NoNewPrivs not set"
# listening on 127.0.0.1:9436 (0100007F:24DC) and nowhere else
l=$(awk '$4 == "0A" { print $2 }' /proc/net/tcp /proc/net/tcp6 | sort -u | tr '\n' ' ')
[ "$l" = "0100007F:24DC " ] && ok "listens on loopback alone" || bad "listening sockets: $l"
# Debian's kernel.perf_event_paranoid = 3: perf events need CAP_SYS_ADMIN,
# so the queue-attribute watcher is off, and the journal says why
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" = 3 ]; then
	journalctl -u iodig-export --no-pager | grep -q "queue-attribute writes are not counted: kernel.perf_event_paranoid is 3" \
		&& ok "perf_event_paranoid 3: the journal says why queue writes are not watched" \
		|| bad "paranoid 3, and the journal says: $(journalctl -u iodig-export --no-pager | tail -3)"
	echo 2 > /proc/sys/kernel/perf_event_paranoid	# as the README says
	systemctl restart iodig-export
	wait_for 60 curl -sf -o /dev/null 127.0.0.1:9436/metrics || bad "no /metrics after the restart"
else
	bad "perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid), not Debian's 3"
fi
journalctl -u iodig-export --no-pager | tail -3
sleep 2
c0=$(metric iodig_request_seconds_count 'disk="loop0".*op="read".*phase="Q2C"'); r0=$(reads)
dd if=/dev/loop0 of=/dev/null bs=4k count=300 iflag=direct status=none
echo mq-deadline > /sys/block/loop0/queue/scheduler; echo none > /sys/block/loop0/queue/scheduler
sleep 2.5
c1=$(metric iodig_request_seconds_count 'disk="loop0".*op="read".*phase="Q2C"'); r1=$(reads)
[ $((c1 - c0)) = $((r1 - r0)) ] && [ $((r1 - r0)) -ge 300 ] && ok "reads timed by the service = /proc/diskstats ($((r1 - r0)))" \
	|| bad "reads timed $((c1 - c0)), diskstats $((r1 - r0))"
w=$(metric iodig_queue_attribute_writes_total 'disk="loop0".*attr="scheduler"')
[ "$w" = 2 ] && ok "the scheduler writes counted (2)" || bad "queue attribute writes: $w"
systemctl stop iodig-export; [ "$(systemctl is-active iodig-export)" = inactive ] && ok "stopped" || bad "not stopped"

# the flight recorder: SIGUSR1 writes what it kept, as its user, in /var/lib/iodig
systemctl start iodig-record || bad "systemctl start iodig-record"
wait_for 60 sh -c 'journalctl -u iodig-record --no-pager | grep -q "Hit Ctrl-C"' || bad "the recorder did not start: $(journalctl -u iodig-record --no-pager | tail -5)"
sleep 1
r0=$(reads)
dd if=/dev/loop0 of=/dev/null bs=4k count=50 iflag=direct status=none
r1=$(reads)
sleep 0.5
systemctl kill -s USR1 iodig-record
wait_for 30 test -s /var/lib/iodig/io-1.rec || bad "no /var/lib/iodig/io-1.rec: $(journalctl -u iodig-record --no-pager | tail -5)"
sleep 1
n=$(iodig replay --json /var/lib/iodig/io-1.rec | grep '"type":"request"' | grep -c '"disk":"loop0"')
[ "$n" = $((r1 - r0)) ] && ok "io-1.rec holds the $n reads (/proc/diskstats)" || bad "io-1.rec: $n loop0 requests, diskstats $((r1 - r0))"
o=$(stat -c %U /var/lib/iodig/io-1.rec)
[ "$o" = iodig ] && ok "recording owned by iodig" || bad "recording owned by $o"
systemctl stop iodig-record

dpkg -P iodig > /tmp/dpkg.out 2>&1 && ok "dpkg -P" || bad "dpkg -P: $(cat /tmp/dpkg.out)"
[ ! -e /usr/sbin/iodig ] && [ ! -e /usr/lib/systemd/system/iodig-export.service ] && ok "nothing left" || bad "files left after dpkg -P"
echo "=== SD GUEST DONE"
