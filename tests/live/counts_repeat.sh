# lat and snoop against /proc/diskstats, five runs in a row at 4000 IOPS
# (bench/counts.sh): every request is seen, or counted as skipped.  A run in
# two on this host has a completion the kernel runs no BPF program for.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
bash "$(dirname "$0")/../../bench/counts.sh" 5 3 > "$T/counts.out" 2>&1 || { cat "$T/counts.out"; die "counts do not add up"; }
sed -n '/^| run/,$p' "$T/counts.out" | sed 's/^/  /'
ok "5 runs: seen + skipped = diskstats, lat and snoop"
