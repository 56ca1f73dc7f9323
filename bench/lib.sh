# Shared by the bench scripts: root, tracefs, and a 256 MiB loop device on a
# /dev/shm file, zero-filled, as $dev (name $n), removed at exit.
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
make -s build/bench/linepong	# (bench.py: the line column)
img=$(mktemp /dev/shm/iodig-bench.XXXXXX)
truncate -s 256M "$img"
dev=$(losetup -f --show "$img")
trap 'losetup -d $dev; rm -f $img' EXIT
dd if=/dev/zero of="$dev" bs=1M count=256 oflag=direct status=none
n=${dev#/dev/}
echo "kernel $(uname -r), $(nproc) CPUs, device $n on /dev/shm; $(date -u +%F)"
echo

# Goal 2's peers (issue #23), the same programs in every bench that names
# them (goals.sh, issue11.sh, issue23.sh): top's bpftrace stand-in (bytes
# and requests by process, printed each second) and bpftrace's stacks of
# each bio (biostacks' kstack+ustack count)
BT_TOP_STANDIN="bpftrace -e 'tracepoint:block:block_io_start { @b[pid, comm] = sum(args->bytes); @n[pid, comm] = count(); } interval:s:1 { print(@b); print(@n); clear(@b); clear(@n); }'"
BT_KUSTACK="bpftrace -e 'tracepoint:block:block_bio_queue { @[kstack, ustack, comm] = count(); }'"

# iodig_bg ARGS...: ./iodig ARGS in the background, output dropped, back once
# it is attached (its --ready-file); its pid in $p
iodig_bg() {
	local r
	r=$(mktemp -u /tmp/iodig-bench-ready.XXXXXX)
	./iodig "$@" --ready-file "$r" >/dev/null 2>&1 & p=$!
	while [ ! -s "$r" ]; do kill -0 "$p" 2>/dev/null || { echo "iodig $* exited before it was ready" >&2; return 1; }; sleep 0.05; done
	rm -f "$r"
}
