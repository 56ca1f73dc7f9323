#!/bin/bash
# bench/memory.sh [SECONDS] [IOPS]: issue #23's memory goal.  lat, the
# request engine's commands (slow, snoop, top, record) and export run at
# once, beside libbpf-tools biolatency and a bpftrace stand-in, for SECONDS
# (default 600) of fio randread 4k (libaio, iodepth 16, at IOPS, default
# 20000), export scraped every second.  Each one's peak RSS (VmHWM, which
# includes start-up) and its RSS at the end, in MB.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}; iops=${2:-20000}
. bench/lib.sh
tmp=$(mktemp -d)
pids=(); names=()
bg() {	# NAME READY-REGEX CMD...: started, back once READY-REGEX is in its output
	local name=$1 re=$2 i f=$tmp/out.${#pids[@]}
	shift 2
	"$@" > "$f" 2>&1 & pids+=($!); names+=("$name")
	for i in $(seq 200); do grep -qE "$re" "$f" 2>/dev/null && return; sleep 0.05; done
	echo "$name: not ready: $(tail -2 "$f")" >&2; exit 1
}
cleanup() { kill -INT "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; losetup -d $dev; rm -f $img; }
trap cleanup EXIT
port=$((31000 + RANDOM % 1000))
cat > "$tmp/lat.bt" <<'BT'
tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
	@usecs[args->dev] = hist((nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}
BEGIN { printf("ready\n"); }
BT
bg "iodig lat -D" '^Tracing' ./iodig lat -D
bg "iodig slow 10" '^Tracing' ./iodig slow 10
bg "iodig snoop (to /dev/null)" '^Tracing' sh -c "exec ./iodig snoop -d $n 2>&1 >/dev/null"
bg "iodig top -b" '^Tracing|^top' sh -c "exec ./iodig top -b 5 2>&1 >/dev/null"
bg "iodig record" '^Recording' ./iodig record -o "$tmp/rec"
bg "iodig export" '^Serving' ./iodig export --listen "127.0.0.1:$port"
bg "libbpf-tools biolatency -D" 'Tracing' stdbuf -oL biolatency -D
bg "bpftrace (biolatency stand-in)" '^ready' bpftrace "$tmp/lat.bt"
sleep 1
fio --name=m --filename="$dev" --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=16 \
    --rate_iops="$iops" --time_based --runtime="$secs" --size=256M > "$tmp/fio.out" & F=$!
while kill -0 $F 2>/dev/null; do curl -s "127.0.0.1:$port/metrics" > /dev/null || true; sleep 1; done
echo "$secs s of fio randread 4k at $(sed -n 's/.*IOPS=\([^,]*\),.*/\1/p' "$tmp/fio.out") IOPS, all at once:"
echo
echo "| tool | peak RSS MB | RSS at the end MB |"
echo "|---|---:|---:|"
for i in "${!pids[@]}"; do
	p=${pids[$i]}
	[ -r /proc/$p/status ] || { echo "| ${names[$i]} | exited | |"; continue; }
	awk -v n="${names[$i]}" '/^VmHWM/ {h = $2} /^VmRSS/ {r = $2} END {printf "| %s | %.1f | %.1f |\n", n, h / 1024, r / 1024}' /proc/$p/status
done
