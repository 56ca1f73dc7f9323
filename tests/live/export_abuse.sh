# iodig export under 1000 hostile clients (half idle, half sending a request
# line a byte a second, reconnecting as soon as they are closed): every
# scrape of a well-behaved client is answered within 1 s, and a real
# Prometheus scraping every second sees the target up for a whole minute.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v prometheus >/dev/null || skip "needs prometheus (Debian package prometheus)"
port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
EP=$(port); PP=$(port)
start_iodig "$T/export.out" export --listen "127.0.0.1:$EP"
cat > "$T/prom.yml" <<YML
global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: iodig
    static_configs: [ { targets: ["127.0.0.1:$EP"] } ]
YML
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$PP" \
	> "$T/prom.log" 2>&1 & PROM=$!
defer "kill $PROM; wait $PROM 2>/dev/null"
q() { curl -s --get "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'; }
for i in $(seq 100); do [ "$(q 'up{job="iodig"}')" = 1 ] && break; sleep 0.2; done
[ "$(q 'up{job="iodig"}')" = 1 ] || die "Prometheus never scraped iodig: $(tail -5 "$T/prom.log")"
D=64	# the attack; Prometheus is held to the 60 s inside it
/usr/bin/python3 "$TOP/tests/helpers/slowclients.py" 127.0.0.1 "$EP" 1000 "$D" > "$T/attack.out" 2>&1 & ATTACK=$!
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
grep -q "closed by the server [1-9]" "$T/attack.out" || die "the server closed none of 1000 clients over its bound: $(cat "$T/attack.out")"
assert_eq "$bad" 0 "scrapes not answered within 1 s while 1000 hostile clients were connected ($good answered, the slowest in $worst s)"
assert_eq "$up_min" 1 "Prometheus' up over $((D - 4)) s under attack (its lowest; $samples scrapes)"
[ "${samples:-0}" -ge $((D - 8)) ] || die "Prometheus scraped only $samples times in $((D - 4)) s"
kill -0 "$IODIG_PID" || die "export died"
stop_iodig
