#!/bin/bash
# bench/issue23.sh BEFORE [SECONDS] [ROUNDS]: issue #23's before and after in
# one bench.py run, on one loop device, rounds interleaved: each request
# engine command (and lat -D, stacks) of the build BEFORE (an iodig binary,
# e.g. one built from the commit before the issue's first change, 364837a)
# beside the same command of this tree's build, and the peers the goals name
# (libbpf-tools biolatency -D, the bpftrace top stand-in, bpftrace's
# kstack+ustack).  Then one table: each command's BPF ns a request, IOPS
# kept and peak RSS before and now, and goals 1, 2 and 4 against their
# targets, each with its peer.  (Goal 3: WHY_BEFORE=BEFORE bench/why.sh.)
set -eu
cd "$(dirname "$0")/.."
before=$(realpath "${1:?usage: bench/issue23.sh BEFORE [SECONDS] [ROUNDS]}")
secs=${2:-4}; rounds=${3:-3}
[ -x "$before" ] || { echo "issue23.sh: $before is not an iodig binary" >&2; exit 1; }
make -s iodig
. bench/lib.sh
tmp=$(mktemp -d); trap 'losetup -d $dev; rm -f $img; rm -rf $tmp' EXIT
port=$((20000 + RANDOM % 20000))
echo "before: $("$before" --version 2>/dev/null | head -1) ($before); now: $(./iodig --version | head -1)"
specs=()
for b in before now; do
	bin=./iodig; [ $b = before ] && bin=$before
	specs+=("$b lat -D=^Tracing block I/O=exec $bin lat -D"
		"$b lat --phases=^Tracing block I/O=exec $bin lat --phases"
		"$b slow 10=^Tracing block I/O=exec $bin slow 10"
		"$b snoop=^Tracing block I/O=exec $bin snoop -d $n >/dev/null"
		"$b top=^Tracing block I/O=exec $bin top -b 1 >/dev/null"
		"$b export=^Serving=exec $bin export --listen 127.0.0.1:$((port + ${#specs[@]}))"
		"$b record=^Recording=exec $bin record -o $tmp/rec.$b --keep 2 --max-mb 64"
		"$b stacks=^Counting stacks=exec $bin stacks -n 5 >/dev/null")
done
BENCH_JSON=$tmp/m.json /usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" "${specs[@]}" \
	"libbpf-tools biolatency -D=Tracing block device=exec stdbuf -oL biolatency -D" \
	"bpftrace top stand-in=^Attaching=exec $BT_TOP_STANDIN" \
	"bpftrace kstack+ustack=^Attaching=exec $BT_KUSTACK"
echo
/usr/bin/python3 - "$tmp/m.json" "$secs" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["tools"]
secs = sys.argv[2]
def yes(ok): return "met" if ok else "**not met**"
print("| command | BPF ns/request before | now | now/before | IOPS kept before | now | peak RSS MB before | now |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for c in ["lat -D", "lat --phases", "slow 10", "snoop", "top", "export", "record", "stacks"]:
    b, n = m["before " + c], m["now " + c]
    print(f"| {c} | {b['ns']:.0f} | {n['ns']:.0f} | {n['ns'] / b['ns']:.2f}x | {b['iops_kept']:.3f} | {n['iops_kept']:.3f} "
          f"| {b['rss_mb']:.1f} | {n['rss_mb']:.1f} |")
for p in ["libbpf-tools biolatency -D", "bpftrace top stand-in", "bpftrace kstack+ustack"]:
    print(f"| {p} (peer) | | {m[p]['ns']:.0f} | | | {m[p]['iops_kept']:.3f} | | {m[p]['rss_mb']:.1f} |")
print()
print("| goal | before | now | target | |")
print("|---|---:|---:|---:|---|")
for c in ["lat --phases", "slow 10", "snoop", "top", "export", "record"]:
    b, n = m["before " + c], m["now " + c]
    print(f"| 1. {c}, BPF ns/request | {b['ns']:.0f} | {n['ns']:.0f} | <= 300 | {yes(n['ns'] <= 300)} |")
    print(f"| 1. {c}, IOPS kept | {b['iops_kept']:.3f} | {n['iops_kept']:.3f} | >= 0.95 | {yes(n['iops_kept'] >= 0.95)} |")
for c, peer, goal in (("top", "bpftrace top stand-in", 0.8), ("stacks", "bpftrace kstack+ustack", 0.7)):
    rb, rn = m["before " + c]["ns"] / m[peer]["ns"], m["now " + c]["ns"] / m[peer]["ns"]
    print(f"| 2. {c} / {peer}, BPF ns | {rb:.2f}x | {rn:.2f}x | <= {goal}x | {yes(rn <= goal)} |")
for c, goal in (("lat -D", 8), ("lat --phases", 8), ("slow 10", 12), ("snoop", 12), ("top", 12), ("export", 12), ("record", 12)):
    b, n = m["before " + c]["rss_mb"], m["now " + c]["rss_mb"]
    # record holds the records of its window on top of the engine: at most
    # --max-mb (64 MiB here) more, what its user asked it to keep
    window = 64 if c == "record" else 0
    what = " (the engine's 12 and its window, --max-mb 64)" if window else ""
    print(f"| 4. {c}, peak RSS MB ({secs} s runs){what} | {b:.1f} | {n:.1f} | <= {goal + window} | {yes(n <= goal + window)} |")
PY
