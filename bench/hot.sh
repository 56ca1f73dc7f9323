#!/bin/bash
# bench/hot.sh "IODIG ARGS" PROGRAM [SECONDS]: where one of iodig's BPF
# programs spends its time, by instruction, beside fio randread 4k (libaio,
# iodepth 16) on a loop device on /dev/shm: perf samples every CPU
# (cpu-clock, 25 kHz), the program's JIT image is disassembled
# (build/bench/jitdump, objdump), and each instruction gets its share of the
# program's own samples.  Prints the 12 hottest with 6 instructions before
# each; a load that misses (a cache line from another CPU) shows as the
# instruction after it.  Helpers the program calls are samples of their own
# (perf report --sort sym).  docs/PERFORMANCE.md, "The slot's line".
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
args=$1 prog=$2 secs=${3:-4}
for t in perf objdump fio; do command -v $t >/dev/null || { echo "hot.sh: needs $t" >&2; exit 1; }; done
make -s iodig build/bench/jitdump
tmp=$(mktemp -d); img=/dev/shm/iodig-hot.img; dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$tmp" "$img"; }
trap cleanup EXIT
truncate -s 256M "$img"; dev=$(losetup -f --show "$img")
dd if=/dev/zero of="$dev" bs=1M count=256 oflag=direct status=none
./iodig $args -d "${dev#/dev/}" > "$tmp/out" 2>&1 & pid=$!
sleep 1.5
id=$(bpftool prog show | awk -v n="name $prog " 'index($0, n) {sub(":", "", $1); print $1}' | tail -1)
[ -n "$id" ] || { kill -INT $pid; echo "hot.sh: no loaded program $prog" >&2; exit 1; }
sym=$(build/bench/jitdump "$id" "$tmp/prog.bin")
addr=$(awk -v s="$sym" '$3 == s {print $1; exit}' /proc/kallsyms)
fio --name=hot --filename="$dev" --rw=randread --bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
    --runtime=$((secs + 2)) --time_based --output-format=terse > "$tmp/fio" 2>/dev/null & fio=$!
sleep 1
perf record -a -F 25000 -o "$tmp/perf.data" -- sleep "$secs" 2>/dev/null >&2
wait $fio; kill -INT $pid; wait $pid || true
perf script -i "$tmp/perf.data" -F ip,sym 2>/dev/null | awk -v s="$sym" '$2 == s {print $1}' > "$tmp/ips"
objdump -D -b binary -m i386:x86-64 --adjust-vma=0x"$addr" "$tmp/prog.bin" > "$tmp/dis"
echo "$sym, id $id: $(wc -l < "$tmp/ips") samples; fio $(awk -F';' '{print $8}' "$tmp/fio") IOPS"
python3 - "$tmp/ips" "$tmp/dis" <<'PY'
import collections, re, sys
ips = collections.Counter(int(l, 16) for l in open(sys.argv[1]) if l.strip())
total = sum(ips.values()) or 1
lines = [(int(m.group(1), 16), m.group(2)) for m in (re.match(r"\s*([0-9a-f]+):\s+(.*)", l) for l in open(sys.argv[2])) if m]
at = {a: i for i, (a, _) in enumerate(lines)}
for a, n in ips.most_common(12):
    if a not in at:
        continue
    i = at[a]
    print("%5.1f%%  %x" % (100.0 * n / total, a))
    for j in range(max(0, i - 6), i + 1):
        print("        %s%s" % ("> " if j == i else "  ", lines[j][1]))
PY
