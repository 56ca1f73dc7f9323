# iodig export under 1000 hostile clients (half idle, half sending a request
# line a byte a second, reconnecting as soon as they are closed): every
# scrape of a well-behaved client is answered within 1 s, and a real
# Prometheus scraping every second sees the target up for a whole minute.
# Then 2300 that hold on, past the 2048 connections the server keeps: the
# oldest are closed for newcomers, and scrapes still get through.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v prometheus >/dev/null || skip "needs prometheus (Debian package prometheus)"
EP=$(free_port)
start_iodig "$T/export.out" export --listen "127.0.0.1:$EP"
prometheus_start "127.0.0.1:$EP"
q() { prom_q "$1"; }
D=64	# the attack; Prometheus is held to the 60 s inside it
N=1000	# hostile clients
/usr/bin/python3 "$TOP/tests/helpers/slowclients.py" 127.0.0.1 "$EP" "$N" "$D" > "$T/attack.out" 2>&1 & ATTACK=$!
sleep 2	# the clients connected
t0=$(date +%s)
good=0; bad=0; worst=0
while [ $(( $(date +%s) - t0 )) -lt $((D - 4)) ]; do
	t=$(curl -s -o "$T/m.txt" -w '%{http_code} %{time_total}' --max-time 1 "http://127.0.0.1:$EP/metrics")
	if [ "${t%% *}" = 200 ] && grep -q '^# TYPE iodig_request_seconds histogram' "$T/m.txt"; then
		good=$((good + 1))
		worst=$(python3 -c "print(max($worst, ${t#* }))")
	else
		bad=$((bad + 1)); echo "  scrape failed: $t"
	fi
	sleep 0.5
done
up_min=$(q "min_over_time(up{job=\"iodig\"}[$((D - 4))s])")
samples=$(q "count_over_time(up{job=\"iodig\"}[$((D - 4))s])")
wait $ATTACK || die "the attacker failed: $(cat "$T/attack.out")"
echo "  $(cat "$T/attack.out")"
grep -q "closed by the server [1-9]" "$T/attack.out" || die "the server cut none of $N slow clients: $(cat "$T/attack.out")"
assert_eq "$bad" 0 "scrapes not answered within 1 s while $N hostile clients were connected ($good answered, the slowest in $worst s)"
assert_eq "$up_min" 1 "Prometheus' up over $((D - 4)) s under attack (its lowest; $samples scrapes)"
[ "${samples:-0}" -ge $((D - 8)) ] || die "Prometheus scraped only $samples times in $((D - 4)) s"
# past the bound: 2300 clients connect once and hold on for 1.7 s, less than
# the 2 s a request may take: what the server closes meanwhile it closed to
# make room (the 2048 connections it keeps: 252 or more)
/usr/bin/python3 "$TOP/tests/helpers/slowclients.py" 127.0.0.1 "$EP" 2300 1.7 hold > "$T/hold.out" 2>&1 & HOLD=$!
sleep 0.6
for i in 1 2 3; do
	t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 1 "http://127.0.0.1:$EP/metrics")
	[ "${t%% *}" = 200 ] || die "a scrape past the bound of connections: $t"
	sleep 0.2
done
wait $HOLD || die "the holding clients failed: $(cat "$T/hold.out")"
closed=$(sed -n 's/.*closed by the server \([0-9]*\).*/\1/p' "$T/hold.out")
[ "${closed:-0}" -ge 252 ] || die "2300 clients against 2048 connections: the server closed ${closed:-0}, want 252 or more: $(cat "$T/hold.out")"
ok "2300 clients holding on: the oldest $closed closed for newcomers, 3 scrapes answered within 1 s"
kill -0 "$IODIG_PID" || die "export died"
stop_iodig
