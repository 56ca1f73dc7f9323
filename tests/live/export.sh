# iodig export scraped by a real Prometheus (Debian's) every second under
# fio: the p99 Prometheus computes from the exporter's buckets agrees with
# fio's own clat p99 on a 5 ms device (within a bucket), the request
# counter's increase is the kernel's (/proc/diskstats, less what iodig says
# it left out, bounded), slow requests on a 5 ms device are counted by their
# dominant phase, queue-attribute writes by disk and attribute; the HTTP
# side answers as HTTP should; the Grafana dashboard uses only metrics that
# exist.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v prometheus >/dev/null || skip "needs prometheus (Debian package prometheus)"
L=$(loopdev 256); d=${L#/dev/}
S=$(slowdev 5 16); s=${S#/dev/}
EP=$(free_port)
start_iodig "$T/export.out" export --listen "127.0.0.1:$EP" --slow-ms 3
EXPORT_PID=$IODIG_PID
/usr/bin/python3 "$TOP/tests/helpers/httpcheck.py" 127.0.0.1 "$EP" || die "HTTP"
prometheus_start "127.0.0.1:$EP"
q() { prom_q "$1"; }
ok "Prometheus scrapes iodig export (up = 1)"

# the load: 8 s of random 4 KiB direct reads of the 5 ms device, whose
# completion latency fio measures on its own clock.  Prometheus' p99 from
# the exporter's buckets must fall in fio's p99's bucket (log2 with 2
# sub-buckets: within 1.5x), and the read counter's increase must be the
# kernel's (/proc/diskstats), short by no more than what iodig says it left
# out (iodig_lost_total: machine-wide, so another disk's losses count too,
# and a competing load on another disk makes them many: the shortfall
# itself is bounded at 20 and 1%)
count() { q "sum(iodig_request_seconds_count{disk=\"$s\",op=\"read\",phase=\"Q2C\"})"; }
lost() { q "sum(iodig_lost_total{what=~\"skipped|partial|untracked|unseen_end|map_full|missed|series_dropped\"})"; }
sleep 2; c0=$(count); c0=${c0:-0}; k0=$(lost); r0=$(diskstat "$s" 1)
fio --name=r --filename="$S" --ioengine=psync --direct=1 --rw=randread --bs=4k --readonly \
	--time_based --runtime=8 --output-format=json > "$T/fio.json" || die "fio"
sleep 3	# the last scrapes
p99=$(q "histogram_quantile(0.99, sum by (le) (rate(iodig_request_seconds_bucket{disk=\"$s\",op=\"read\",phase=\"Q2C\"}[14s])))")
fio99=$(jq '.jobs[0].read.clat_ns.percentile["99.000000"]' "$T/fio.json")
python3 -c "import sys; p, f = float('$p99') * 1e9, $fio99; sys.exit(0 if f / 1.5 <= p <= f * 1.5 else 1)" \
	|| die "Prometheus' Q2C p99 $p99 s against fio's clat p99 $fio99 ns"
ok "Q2C p99 by Prometheus' histogram_quantile $(python3 -c "print(round($p99 * 1e3, 2))") ms, fio's clat p99 $(python3 -c "print(round($fio99 / 1e6, 2))") ms (within the 1.5x bucket)"
r1=$(diskstat "$s" 1); c1=$(count); k1=$(lost)
ds=$((r1 - r0)); got=$(python3 -c "print(int(float('$c1') - float('$c0')))"); sk=$(python3 -c "print(int(float('$k1') - float('$k0')))")
fios=$(jq '.jobs[0].read.total_ios' "$T/fio.json")
[ "$ds" -ge "$fios" ] || die "diskstats counted $ds reads, fio did $fios"
[ "$got" -le "$ds" ] && [ "$got" -ge $((ds - sk)) ] && [ $((ds - got)) -le 20 ] && [ $(((ds - got) * 100)) -le "$ds" ] \
	|| die "reads counted by iodig $got, by diskstats $ds (left out, said: $sk; by what, machine-wide: $(curl -s "http://127.0.0.1:$EP/metrics" | grep '^iodig_lost_total' | tr '\n' ' '))"
ok "increase of the read count in Prometheus = $got, /proc/diskstats $ds, fio $fios (iodig_lost_total rose by $sk)"
assert_eq "$(q "sum(iodig_disk_requests_total{disk=\"$s\",op=\"read\"})")" "$r1" "iodig_disk_requests_total = /proc/diskstats"

# slow requests on the 5 ms device, by dominant phase; queue-attribute writes
s0=$(q "sum(iodig_slow_requests_total{disk=\"$s\",phase=\"D2C\"})")
dd if="$S" of=/dev/null bs=4k count=10 iflag=direct status=none
echo 256 > "/sys/block/$d/queue/read_ahead_kb"; echo 128 > "/sys/block/$d/queue/read_ahead_kb"
sleep 3
assert_eq "$(python3 -c "print(int(float('$(q "sum(iodig_slow_requests_total{disk=\"$s\",phase=\"D2C\"})")') - float('$s0')))")" 10 "slow requests (Q2C >= 3 ms) of dd's 10 on the 5 ms device, mostly D2C"
assert_eq "$(q "sum(iodig_queue_attribute_writes_total{disk=\"$d\",attr=\"read_ahead_kb\"})")" 2 "queue-attribute writes to $d's read_ahead_kb"

# the dashboard: every metric it names is one the exporter serves
curl -s "http://127.0.0.1:$EP/metrics" > "$T/metrics"
python3 - "$TOP/contrib/grafana/iodig.json" "$T/metrics" <<'PY' || die "dashboard"
import json, re, sys
dash = json.load(open(sys.argv[1]))
served = set(re.findall(r"^# TYPE (\S+) (\S+)", open(sys.argv[2]).read(), re.M))
names = {n for n, t in served} | {n + s for n, t in served if t == "histogram" for s in ("_bucket", "_sum", "_count")}
exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]] + [v["query"] for v in dash["templating"]["list"]]
used = {m for e in exprs for m in re.findall(r"\b(iodig_[a-z_]+)", e)}
missing = used - names
assert not missing, missing
assert any(p["type"] == "heatmap" for p in dash["panels"])
print("  ok: the dashboard's %d queries use %d metrics, all served" % (len(exprs), len(used)))
PY

kill -INT "$EXPORT_PID"; wait "$EXPORT_PID"; assert_eq "$?" 0 "export exits 0 on SIGINT"
PIDS=()
curl -s -m 2 "http://127.0.0.1:$EP/metrics" > /dev/null && die "still serving after SIGINT"
ok "the port is closed after SIGINT"
"$IODIG" export --listen 127.0.0.1:99999 2>"$T/e"; assert_eq "$?" 2 "--listen with port 99999: a usage error"
"$IODIG" export --listen nosuchhost:80 2>"$T/e"; assert_eq "$?" 2 "--listen with a name, not an address: a usage error"
# beyond loopback only on purpose: refused without --allow-remote (before
# anything loads), and said in one line with it
for a in "0.0.0.0:$EP" ":$EP" "[::]:$EP"; do
	"$IODIG" export --listen "$a" 2>"$T/e"; assert_eq "$?" 2 "--listen $a without --allow-remote: a usage error"
	grep -q -- "--allow-remote" "$T/e" || die "--listen $a: $(cat "$T/e")"
done
R=$(free_port)
start_iodig "$T/remote.out" export --listen "0.0.0.0:$R" --allow-remote
curl -sf "http://127.0.0.1:$R/metrics" | grep -q '^# TYPE iodig_request_seconds histogram' || die "--allow-remote: nothing served on $R"
stop_iodig
grep -q "beyond loopback, without TLS or authentication" "$T/remote.out.err" || die "--allow-remote said nothing: $(cat "$T/remote.out.err")"
ok "--listen 0.0.0.0 --allow-remote: served, and one line says what is exposed"
